/**
 * A request of this very app, answered in process: Node's own request and response objects (`IncomingMessage`,
 * `ServerResponse`) over a socket that is no socket (it takes the answer's bytes and drops them), handed to the
 * Express app as its listener would hand them. Every middleware and route runs as for a request off the wire,
 * the request log and idempotency included, but no connection is opened, no HTTP text is parsed on either side
 * and nothing is copied into a client's buffers: the answer is read off the response as it is written (its
 * status, its headers, the bytes of its body).
 *
 * The objects are Node's own, with nothing overridden on their prototypes: Express re-parents them onto its
 * request and response (`setPrototypeOf`), and their own `finish`, `writableFinished` and `close` still mean what
 * they mean on the wire (a response's `close` follows its `finish`, as Node's server emits it).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';

export interface InProcessRequest {
  method: string;
  /** The path and query, as a request line has them. */
  url: string;
  /** Names in lower case. */
  headers: Record<string, string>;
  body?: Buffer;
}

export interface InProcessAnswer {
  status: number;
  /** Names in lower case; a repeated header joined with ", ". */
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/** The addresses the request is said to have come from and to (the outer request's, so `req.ip` is its). */
export interface SocketAddresses {
  remoteAddress: string | undefined;
  remotePort: number | undefined;
  localAddress: string | undefined;
  localPort: number | undefined;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Takes the bytes a response writes and drops them: the answer is read off the response itself. */
class NoSocket extends Duplex {
  override _read(): void {}
  override _write(_chunk: unknown, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    done();
  }
}

/** Runs `request` through `app` and resolves with its answer once the response has finished. */
export function requestInProcess(
  app: RequestListener,
  request: InProcessRequest,
  from: SocketAddresses,
  prepare?: (req: IncomingMessage) => void,
): Promise<InProcessAnswer> {
  const socket = Object.assign(new NoSocket(), from);
  const req = incomingOf(socket, request);
  const res = new ServerResponse(req);
  const chunks = captureBody(res);
  res.assignSocket(socket as never);
  prepare?.(req);
  return new Promise((resolve, reject) => {
    res.once('finish', () => {
      // As Node's server does once a response finished: the socket is let go, then `close` follows.
      res.detachSocket(socket as never);
      socket.destroy();
      process.nextTick(() => res.emit('close'));
      resolve({ status: res.statusCode, headers: headersOf(res), body: Buffer.concat(chunks) });
    });
    res.once('error', reject);
    app(req, res);
  });
}

function incomingOf(socket: NoSocket, request: InProcessRequest): IncomingMessage {
  const req = new IncomingMessage(socket as never);
  req.method = request.method;
  req.url = request.url;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  const headers = { ...request.headers };
  if (request.body !== undefined) headers['content-length'] = String(request.body.length);
  req.headers = headers;
  req.rawHeaders = Object.entries(headers).flat();
  if (request.body !== undefined && request.body.length > 0) req.push(request.body);
  req.push(null);
  req.complete = true;
  return req;
}

/** The body's bytes as the response writes them (`write` and `end` of this one response, then as they are). */
function captureBody(res: ServerResponse): Buffer[] {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string')
      chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  const { write, end } = res;
  const own = res as unknown as Record<'write' | 'end', (...args: unknown[]) => unknown>;
  own.write = (...args: unknown[]) => {
    keep(args[0], args[1]);
    return write.apply(res, args as Parameters<typeof write>);
  };
  own.end = (...args: unknown[]) => {
    if (typeof args[0] !== 'function') keep(args[0], args[1]);
    return end.apply(res, args as Parameters<typeof end>);
  };
  return chunks;
}

function headersOf(res: ServerResponse): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value?.toString();
  }
  return headers;
}
