/**
 * How big a request's head may be, stated once: a URL (path and query) of at most 16 KiB, and a head (request
 * line and headers together) of at most 32 KiB, which leaves room for a longest legal URL and a few KiB of
 * headers. Past them a request is refused before anything reads it, in the contract's envelope: 414 for a long
 * URL (by the app, first thing), 431 for a head Node's parser would not take (by the listener's `clientError`,
 * as no route ever sees such a request); any other request Node cannot parse is a 400.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { RequestHandler } from 'express';
import { AppError, type ErrorCode, statusOf } from '../errors.ts';

export const MAX_URL_BYTES = 16 * 1024;
export const MAX_HEAD_BYTES = 32 * 1024;

/** 414 for a URL over the limit; counted in bytes as sent (the URL is ASCII on the wire). */
export function urlLimit(): RequestHandler {
  return (req, _res, next) => {
    if (req.url.length <= MAX_URL_BYTES) return next();
    next(
      new AppError(
        'uri_too_long',
        `The URL is ${req.url.length} bytes long; at most ${MAX_URL_BYTES} are read. Send long values in a body, or fewer of them.`,
      ),
    );
  };
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

function envelope(code: ErrorCode, message: string): { status: number; body: string } {
  const request_id = `req_${randomBytes(9).toString('base64url')}`;
  return { status: statusOf(code), body: JSON.stringify({ error: { code, message, request_id } }) };
}

/**
 * The answer to a request Node's parser refused (the listener's `clientError`): 431 for a head over the limit,
 * 400 for anything else it could not parse, then the connection is closed (its bytes cannot be trusted).
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy();
    return;
  }
  // Bytes after a request that is still being answered (a body sent without a length, read as a next request):
  // that request's answer goes out first and alone, then the connection closes. Answering the bytes now would put
  // a 400 where the client waits for the first answer, while its write goes ahead.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  // The connection ended (or broke) before the request in flight had all its body: it never will, and whatever
  // reads that body (body-bytes.ts) would wait for ever, holding the connection and a graceful stop. Ending the
  // request tells the reader (the request fails, nothing is written) and closes the connection.
  if (inFlight?.req && !inFlight.req.complete) {
    inFlight.req.destroy();
    return;
  }
  if (inFlight) {
    // The answer says the connection closes, so a client does not send its next request on it; and the socket is
    // ended, not destroyed: destroying one with unread bytes resets it, and the client may lose the answer.
    if (!inFlight.headersSent) inFlight.setHeader('Connection', 'close');
    inFlight.once('close', () => socket.end());
    return;
  }
  const { status, body } =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? envelope('headers_too_large', `The request's URL and headers exceed ${MAX_HEAD_BYTES} bytes.`)
      : envelope('invalid_parameter', 'The request is not valid HTTP/1.1.');
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
  );
}
