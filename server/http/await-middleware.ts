import type { Request, RequestHandler, Response } from 'express';

/**
 * An Express middleware run as one awaited step of a handler (the route pipeline's body parser, `/mcp`'s):
 * resolves when it calls `next()`, rejects with what it passes to `next(err)`. A middleware that answers the
 * request itself must not be run this way: the step would never settle.
 */
export function awaitMiddleware(handler: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const next = (err?: unknown) => (err === undefined || err === null ? resolve() : reject(err));
    try {
      // A middleware returning a promise (Express 5 style) reports a failure by rejecting it.
      const returned: unknown = handler(req, res, next);
      if (returned instanceof Promise) returned.catch(reject);
    } catch (err) {
      reject(err);
    }
  });
}
