/**
 * A request body's bytes, read as body-parser reads them (its errors, by their `type`: a body over the limit
 * 413 `entity.too.large`, a short or aborted one 400, an unknown Content-Encoding 415; gzip, deflate and br
 * bodies inflated, the limit counting the inflated bytes), and handed to `use` joined in one buffer.
 *
 * The buffer is kept between requests (lib/kept-buffer.ts, given back after a minute or two unused): a fresh one
 * of 5 MB is a fresh mapping under the allocator settings the `sheetport` command runs with, whose page faults
 * cost the service's thread 16 ms of a 5 MB body on a 2-core VM (docs/performance.md). So `use` must be done with
 * the bytes when it returns: it runs at once, and one request's bytes are never joined while another's are in use.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import { KeptBuffer } from '../lib/kept-buffer.ts';

/** The largest body the API takes, unless a route declares its own limit (`/mcp`). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** Smaller bodies are joined in a buffer of their own: the allocator gives them memory already mapped. */
const OWN_BELOW_BYTES = 1024 * 1024;
/** Bodies up to the API's limit are joined in the kept buffer; a larger one in its own. */
const kept = new KeptBuffer(MAX_BODY_BYTES, 60_000);

/** The error body-parser would pass on, as the error envelope maps it (errors.ts: by `type`, else `status`). */
function failure(status: number, message: string, type: string, extra: object = {}): Error {
  return Object.assign(new Error(message), { status, type, ...extra });
}

/** The encodings a body may be sent in, and what inflates each (a Map: the name is the client's). */
const INFLATERS = new Map<string, () => Transform>([
  ['gzip', () => zlib.createGunzip()],
  ['deflate', () => zlib.createInflate()],
  ['br', () => zlib.createBrotliDecompress()],
]);

/** The Content-Encodings a body may be sent in, besides none. */
export const BODY_ENCODINGS: readonly string[] = [...INFLATERS.keys()];

/** The stream the body's bytes come from: the request itself, or its bytes inflated. */
function bodyStream(req: IncomingMessage): Readable {
  // An empty header names no encoding, as body-parser took it.
  const encoding = (req.headers['content-encoding'] || 'identity').toLowerCase();
  if (encoding === 'identity') return req;
  const inflate = INFLATERS.get(encoding);
  if (!inflate) {
    throw failure(415, `unsupported content encoding "${encoding}"`, 'encoding.unsupported', { encoding });
  }
  return req.pipe(inflate());
}

/** The chunks joined, in the kept buffer when they fit. */
function joined(chunks: readonly Buffer[], total: number): Buffer {
  if (total > kept.size || total < OWN_BELOW_BYTES) return Buffer.concat(chunks, total);
  const buffer = kept.take();
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(buffer, at);
  return buffer.subarray(0, total);
}

/** Reads what is left of the request, so that its connection can answer (body-parser's `dump`). */
function drain(req: IncomingMessage): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.once('end', resolve);
    req.once('close', resolve);
    req.resume();
  });
}

/**
 * Reads the body of `req` (up to `limit` bytes once inflated) and resolves with what `use` makes of its bytes,
 * called synchronously with them once the last one is in. Rejects with body-parser's kind of error, once the
 * rest of the request has been read.
 */
export function readBodyBytes<T>(req: IncomingMessage, limit: number, use: (bytes: Buffer) => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    // Its connection closed while the request waited for its turn (a key check, a limit): no event will come.
    if (req.destroyed) {
      reject(failure(400, 'request aborted', 'request.aborted'));
      return;
    }
    let stream: Readable;
    try {
      stream = bodyStream(req);
    } catch (e) {
      drain(req).then(() => reject(e));
      return;
    }
    const declared = stream === req ? Number(req.headers['content-length'] ?? Number.NaN) : Number.NaN;
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      // An inflater let go of may still report an error it had under way: heard, not thrown.
      if (stream !== req) stream.on('error', () => {});
      req.off('aborted', onAborted);
      req.off('close', onClose);
    };
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      chunks.length = 0;
      if (stream !== req) {
        req.unpipe();
        stream.destroy();
      }
      drain(req).then(() => reject(error));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        fail(failure(413, 'request entity too large', 'entity.too.large', { limit }));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (settled) return;
      if (Number.isFinite(declared) && received !== declared) {
        fail(failure(400, 'request size did not match content length', 'request.size.invalid'));
        return;
      }
      settled = true;
      cleanup();
      try {
        resolve(use(joined(chunks, received)));
      } catch (e) {
        reject(e);
      }
    };
    const onError = (error: Error) => fail(failure(400, error.message, 'request.aborted'));
    const onAborted = () => fail(failure(400, 'request aborted', 'request.aborted'));
    const onClose = () => {
      if (!req.complete) onAborted();
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    // A request whose connection closes before its end: 'aborted' where the runtime still says so, else 'close'.
    req.on('aborted', onAborted);
    req.on('close', onClose);
  });
}
