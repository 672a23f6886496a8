import express, { type RequestHandler } from 'express';
import { AppError } from '../errors.ts';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

const parseJson = express.json({ limit: MAX_BODY_BYTES, strict: true, type: () => true });

/** `application/json` or any `+json` type, with optional parameters. */
function isJsonType(contentType: string): boolean {
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

/**
 * Bodies are JSON only. A body of another type is 415 before anything is read; an over-long body is 413
 * (checked against Content-Length first, so a 50 MB upload is refused without reading it).
 */
export function jsonBody(): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    const hasBody = req.headers['transfer-encoding'] !== undefined || declared > 0;
    if (!hasBody) {
      req.body = undefined;
      return next();
    }
    const type = req.headers['content-type'];
    if (!type || !isJsonType(type)) {
      return next(
        new AppError(
          'unsupported_media_type',
          'Request bodies must be JSON (Content-Type: application/json).',
        ),
      );
    }
    if (declared > MAX_BODY_BYTES) {
      // Refuse before reading a byte; closing the connection spares the client sending the rest.
      res.setHeader('Connection', 'close');
      return next(new AppError('payload_too_large', 'Request body is larger than 5 MB.'));
    }
    parseJson(req, res, next);
  };
}
