import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../errors.ts';
import { awaitMiddleware } from './await-middleware.ts';
import { refuseOversizedJson } from './json-bounds.ts';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;
export const NOT_UTF8 = 'entity.not.utf8';

/** The refusal of a body over `maxBytes` (413), whether its length was declared or found while reading it. */
export const tooLarge = (maxBytes: number) => `Request body is larger than ${maxBytes / (1024 * 1024)} MB.`;

/**
 * Bytes that are not UTF-8 would otherwise be decoded leniently (each bad byte becomes U+FFFD) and stored
 * as mojibake: refuse them; so are bodies nested deeper than MAX_JSON_DEPTH or holding more than
 * MAX_JSON_VALUES values, before JSON.parse sees them (json-bounds.ts). Not strict about the top level, so `"text"` or `42` reach the route, whose
 * message says what shape it wants instead of calling valid JSON invalid. `seen` is handed the bytes as checked.
 */
function jsonParser(maxBytes: number, seen?: (bytes: Buffer) => void): RequestHandler {
  return express.json({
    limit: maxBytes,
    strict: false,
    type: () => true,
    verify: (_req, _res, bytes) => {
      // body-parser wraps what is thrown here as a 403; the error middleware maps this `type` to 400.
      if (!isUtf8(bytes))
        throw Object.assign(new Error('Request body is not valid UTF-8.'), { type: NOT_UTF8 });
      refuseOversizedJson(bytes);
      seen?.(bytes);
    },
  });
}

const parseJson = jsonParser(MAX_BODY_BYTES);

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
  if (!digest) {
    await awaitMiddleware(maxBytes === MAX_BODY_BYTES ? parseJson : jsonParser(maxBytes), req, res);
    return undefined;
  }
  let sha256: string | undefined;
  await awaitMiddleware(
    jsonParser(maxBytes, (bytes) => {
      sha256 = createHash('sha256').update(bytes).digest('hex');
    }),
    req,
    res,
  );
  return sha256;
}

/** readJsonBody as a guard of its own, for the routes no key reaches (`admin`, `sign_in`). */
export function jsonBody(): RequestHandler {
  return (req, res, next) => {
    readJsonBody(req, res, false).then(() => next(), next);
  };
}
