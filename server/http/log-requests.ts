/** The middleware that writes the request log (logs/request-log.ts holds the log itself). */
import type { RequestHandler } from 'express';
import type { RequestLog } from '../logs/request-log.ts';
import { locals } from './locals.ts';
import { redactUrl } from './redact-url.ts';
import type { RouteRequest, RouteResponse } from './route-table.ts';

/** Where the error middleware leaves the cause of a 5xx for the request log line. */
const CAUSE = Symbol('sheetport.failureCause');

/** Called by the error middleware: the request's log line carries this error when the answer is a 5xx. */
export function noteFailureCause(res: Pick<RouteResponse, 'locals'>, err: unknown): void {
  (res.locals as { [CAUSE]?: unknown })[CAUSE] = err;
}

/**
 * One line per request, written once the answer is sent (or the client is gone): request id, method, the URL
 * without secrets, status, duration and the key's id. Never the Authorization header or any other header.
 */
export function logRequests(log: RequestLog): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    res.once('close', () => writeLogLine(log, req, res, started));
    next();
  };
}

/**
 * The line of one request, answered (or given up) now; `tool` names the MCP tool whose call it was, for a call
 * made without HTTP (route-call.ts), which writes its own line.
 */
export function writeLogLine(
  log: RequestLog,
  req: Pick<RouteRequest, 'method' | 'originalUrl'>,
  res: Pick<RouteResponse, 'locals' | 'statusCode' | 'writableFinished'>,
  started: number,
  tool?: string,
): void {
  const l = locals(res);
  const cause = res.statusCode >= 500 ? (res.locals as { [CAUSE]?: unknown })[CAUSE] : undefined;
  log.write({
    request_id: l.requestId,
    method: req.method,
    path: redactUrl(req.originalUrl),
    status: res.statusCode,
    duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    key_id: l.loggedKeyId ?? null,
    ...(tool !== undefined ? { tool } : {}),
    ...(res.writableFinished ? {} : { aborted: true as const }),
    ...(cause !== undefined ? { err: cause } : {}),
  });
}
