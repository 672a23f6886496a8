import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import express, { type RequestHandler, type Response } from 'express';
import { AppError } from '../errors.ts';
import { refuseOversizedJson } from './json-bounds.ts';
import { locals } from './locals.ts';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;
export const NOT_UTF8 = 'entity.not.utf8';

/** The refusal of a body over `maxBytes` (413), whether its length was declared or found while reading it. */
export const tooLarge = (maxBytes: number) => `Request body is larger than ${maxBytes / (1024 * 1024)} MB.`;

/**
 * Bytes that are not UTF-8 would otherwise be decoded leniently (each bad byte becomes U+FFFD) and stored
 * as mojibake: refuse them; so are bodies nested deeper than MAX_JSON_DEPTH or holding more than
 * MAX_JSON_VALUES values, before JSON.parse sees them (json-bounds.ts). Not strict about the top level, so `"text"` or `42` reach the route, whose
 * message says what shape it wants instead of calling valid JSON invalid.
 */
const parseJsonUpTo = (maxBytes: number) =>
  express.json({
    limit: maxBytes,
    strict: false,
    type: () => true,
    verify: (req, res, bytes) => {
      // body-parser wraps what is thrown here as a 403; the error middleware maps this `type` to 400.
      if (!isUtf8(bytes))
        throw Object.assign(new Error('Request body is not valid UTF-8.'), { type: NOT_UTF8 });
      refuseOversizedJson(bytes);
      if (req.headers['idempotency-key'] !== undefined) {
        locals(res as Response).bodyDigest = createHash('sha256').update(bytes).digest('hex');
      }
    },
  });

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
 * without reading it).
 */
export function jsonBody(maxBytes = MAX_BODY_BYTES): RequestHandler {
  const parseJson = parseJsonUpTo(maxBytes);
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
    if (declaresOtherCharset(type)) {
      return next(new AppError('unsupported_media_type', 'Request bodies must be UTF-8 JSON.'));
    }
    if (declared > maxBytes) {
      // Refuse before reading a byte; closing the connection spares the client sending the rest.
      res.setHeader('Connection', 'close');
      return next(new AppError('payload_too_large', tooLarge(maxBytes)));
    }
    parseJson(req, res, next);
  };
}
