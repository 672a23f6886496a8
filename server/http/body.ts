import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors.ts';
import { MAX_BODY_BYTES, readBodyBytes } from './body-bytes.ts';
import { refuseOversizedJson } from './json-bounds.ts';

export { MAX_BODY_BYTES };
export const NOT_UTF8 = 'entity.not.utf8';

/** The refusal of a body over `maxBytes` (413), whether its length was declared or found while reading it. */
export const tooLarge = (maxBytes: number) => `Request body is larger than ${maxBytes / (1024 * 1024)} MB.`;

/**
 * The value of a body's bytes. Bytes that are not UTF-8 would otherwise be decoded leniently (each bad byte
 * becomes U+FFFD) and stored as mojibake: they are refused; so are bodies nested deeper than MAX_JSON_DEPTH or
 * holding more than MAX_JSON_VALUES values, before JSON.parse sees them (json-bounds.ts). A byte order mark is
 * skipped, and an empty body is `{}`, as body-parser has them. Not strict about the top level, so `"text"` or `42`
 * reach the route, whose message says what shape it wants instead of calling valid JSON invalid. `seen` is
 * handed the bytes as checked. The errors carry body-parser's `type`, which the error envelope maps (errors.ts).
 */
export function parseJsonBytes(bytes: Buffer, seen?: (bytes: Buffer) => void): unknown {
  if (!isUtf8(bytes)) throw Object.assign(new Error('Request body is not valid UTF-8.'), { type: NOT_UTF8 });
  refuseOversizedJson(bytes);
  seen?.(bytes);
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const text = bytes.toString('utf8', bom ? 3 : 0);
  if (text.length === 0) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw Object.assign(new SyntaxError('Request body is not valid JSON.'), {
      type: 'entity.parse.failed',
      status: 400,
    });
  }
}

/** Only UTF-8 JSON: a declared charset other than utf-8 is refused before the body is read. */
function declaresOtherCharset(contentType: string): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  return charset !== undefined && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8';
}

/** `application/json` or any `+json` type, with optional parameters. */
function isJsonType(contentType: string): boolean {
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

/**
 * Bodies are JSON only. A body of another type is 415 before anything is read; a body over `maxBytes` (5 MiB
 * unless a route declares otherwise) is 413 (checked against Content-Length first, so a 50 MB upload is refused
 * without reading it). Resolves with the SHA-256 of the body's bytes, taken as they were checked, when `digest`
 * is asked for (the Idempotency-Key's fingerprint, idempotency.ts: cheaper than serializing the parsed body
 * again); `req.body` holds the value.
 */
export async function readJsonBody(
  req: Request,
  res: Response,
  digest: boolean,
  maxBytes = MAX_BODY_BYTES,
): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  const hasBody = req.headers['transfer-encoding'] !== undefined || declared > 0;
  if (!hasBody) {
    req.body = undefined;
    return undefined;
  }
  const type = req.headers['content-type'];
  if (!type || !isJsonType(type)) {
    throw new AppError(
      'unsupported_media_type',
      'Request bodies must be JSON (Content-Type: application/json).',
    );
  }
  if (declaresOtherCharset(type)) {
    throw new AppError('unsupported_media_type', 'Request bodies must be UTF-8 JSON.');
  }
  if (declared > maxBytes) {
    // Refuse before reading a byte; closing the connection spares the client sending the rest.
    res.setHeader('Connection', 'close');
    throw new AppError('payload_too_large', tooLarge(maxBytes));
  }
  let sha256: string | undefined;
  const seen = digest
    ? (bytes: Buffer) => {
        sha256 = createHash('sha256').update(bytes).digest('hex');
      }
    : undefined;
  req.body = await readBodyBytes(req, maxBytes, (bytes) => parseJsonBytes(bytes, seen));
  return sha256;
}

/** readJsonBody as a guard of its own, for the routes no key reaches (`admin`, `sign_in`). */
export function jsonBody(): RequestHandler {
  return (req, res, next) => {
    readJsonBody(req, res, false).then(() => next(), next);
  };
}
