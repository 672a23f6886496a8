import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { holdsSecret } from '../lib/redact-secrets.ts';
import { locals } from './locals.ts';

/**
 * A client-chosen id is kept when it is short and plain, so logs on both sides line up; never one shaped like a
 * secret (a key pasted into the wrong header), which would be logged and echoed as the id.
 */
const CLIENT_ID = /^[\w.:-]{1,64}$/;

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const id = given && CLIENT_ID.test(given) && !holdsSecret(given) ? given : newRequestId();
    locals(res).requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}

/** An id of our own, for a request that brought none (or a call made without HTTP, route-call.ts). */
export function newRequestId(): string {
  return `req_${randomBytes(9).toString('base64url')}`;
}
