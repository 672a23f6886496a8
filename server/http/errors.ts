import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, isAppError } from '../errors.ts';
import { pathHider } from '../lib/hide-path.ts';
import { grouped } from '../lib/quantity.ts';
import { excerpt, redactSecrets } from '../lib/redact-secrets.ts';
import { insufficientStorage, isStorageFailure } from '../lib/storage-failure.ts';
import { MAX_BODY_BYTES, NOT_UTF8, tooLarge } from './body.ts';
import { BODY_ENCODINGS } from './body-bytes.ts';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES, TOO_DEEP, TOO_MANY_VALUES } from './json-bounds.ts';
import { locals } from './locals.ts';
import { noteFailureCause } from './log-requests.ts';
import { redactUrl } from './redact-url.ts';
import type { RouteRequest, RouteResponse } from './route-table.ts';

/** Body-parser and http-errors failures carry a `type` or `status`; map them onto contract codes. */
function fromFrameworkError(err: unknown): AppError | null {
  if (typeof err !== 'object' || err === null) return null;
  // The router fails to decode a path segment like `%ZZ`.
  if (err instanceof URIError)
    return new AppError('invalid_parameter', 'Malformed percent-encoding in the URL path.');
  const e = err as { type?: string; status?: number; message?: string; limit?: number; encoding?: string };
  switch (e.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_body', 'Request body is not valid JSON.');
    case NOT_UTF8:
      return new AppError('invalid_body', 'Request body is not valid UTF-8; send JSON encoded as UTF-8.');
    case TOO_DEEP:
      return new AppError(
        'invalid_body',
        `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`,
      );
    case TOO_MANY_VALUES:
      return new AppError(
        'invalid_body',
        `Request body holds more than ${grouped(MAX_JSON_VALUES)} values (array elements and object members); send fewer rows per request.`,
      );
    case 'entity.too.large':
      return new AppError('payload_too_large', tooLarge(e.limit ?? MAX_BODY_BYTES));
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'Request body must be UTF-8 JSON.');
    case 'encoding.unsupported':
      return new AppError(
        'unsupported_media_type',
        `Content-Encoding "${e.encoding ?? ''}" is not accepted; send the body uncompressed, or as ${BODY_ENCODINGS.join(', ')}.`,
      );
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return new AppError('invalid_body', 'Request body could not be read.');
  }
  if (e.status === 400) return new AppError('invalid_body', 'Malformed request.');
  // The database or a file in the data dir could not take what was written (a full disk): nothing was stored.
  if (isStorageFailure(err)) return insufficientStorage();
  return null;
}

/** The longest message or detail an error carries: one that echoes a 5 MB name is cut. */
export const MAX_ERROR_TEXT = 2_000;

/**
 * What a client may read of a message or detail: at most MAX_ERROR_TEXT characters, no secret it carried (a path
 * or field name may repeat one), and not the data dir's absolute path, should a message quote a file there
 * (hide-path.ts, the safety net: messages are worded without paths in the first place). Cut first, so an echo
 * of a 5 MB body costs what an echo of 2,000 characters costs; the cut never leaves part of a secret or of the
 * data dir's path.
 */
export function clientText(dataDir: string | null): (text: string) => string {
  const hide = dataDir === null ? (text: string) => text : pathHider(dataDir);
  return (text) => redactSecrets(hide(excerpt(text, MAX_ERROR_TEXT)));
}

/**
 * Every failure of SheetPort's own (a 5xx, an unexpected throw, a failure after the answer had started) is logged
 * with its cause and request id, so the `request_id` a client saw leads to it; 4xx answers are the client's and
 * are only in the request log.
 */
export type AnswerError = (
  err: unknown,
  req: Pick<RouteRequest, 'method' | 'originalUrl'>,
  res: RouteResponse & { destroy?: () => void },
) => void;

/** The error envelope a failure is answered with, on the wire (errorHandler) or to a call (route-call.ts). */
export function errorAnswer(
  log: (message: string, err: unknown) => void,
  dataDir: string | null,
): AnswerError {
  const shown = clientText(dataDir);
  return (err, req, res) => {
    const appError = isAppError(err) ? err : fromFrameworkError(err);
    const error = appError ?? new AppError('internal_error', 'Something went wrong inside SheetPort.');
    if (!appError || error.status >= 500 || res.headersSent) {
      noteFailureCause(res, err);
      const what = res.headersSent ? 'failed after the answer had started' : `answered ${error.status}`;
      log(
        `Request ${locals(res).requestId} (${req.method} ${redactUrl(req.originalUrl)}) ${what}; cause:`,
        err,
      );
    }
    if (res.headersSent) {
      res.destroy?.();
      return;
    }
    if (error.code === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer realm="SheetPort"');
    // An upstream that asked for patience (Google's quota) says how long in seconds.
    if (typeof error.details.retry_after === 'number')
      res.setHeader('Retry-After', String(error.details.retry_after));
    res.status(error.status).json({
      error: {
        code: error.code,
        message: shown(error.message),
        request_id: locals(res).requestId,
        ...Object.fromEntries(
          Object.entries(error.details).map(([name, v]) => [name, typeof v === 'string' ? shown(v) : v]),
        ),
      },
    });
  };
}

/** The last middleware: every failure of a request off the wire, answered by `answer`. */
export function errorHandler(answer: AnswerError): ErrorRequestHandler {
  return (err, req, res, _next) => answer(err, req, res);
}

export const notFound: RequestHandler = (req, _res, next) => {
  next(new AppError('not_found', `No route for ${req.method} ${req.path}.`));
};
