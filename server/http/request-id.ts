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

const ID_BYTES = 9;
/** Random bytes for this many ids are drawn at once: one call into the OS's generator per batch, not per request. */
const BATCH = 256;
let pool = Buffer.alloc(0);
let taken = 0;

/** An id of our own, for a request that brought none (or a call made without HTTP, route-call.ts). */
export function newRequestId(): string {
  if (taken + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * BATCH);
    taken = 0;
  }
  const id = pool.toString('base64url', taken, taken + ID_BYTES);
  taken += ID_BYTES;
  return `req_${id}`;
}
