import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';
import { locals } from './locals.ts';

/** A client-chosen id is kept when it is short and plain, so logs on both sides line up. */
const CLIENT_ID = /^[\w.:-]{1,64}$/;

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const id = given && CLIENT_ID.test(given) ? given : `req_${randomBytes(9).toString('base64url')}`;
    locals(res).requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}
