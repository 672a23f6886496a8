import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middleware run one after the other as one: what `app.use` of each would do, without Express's walk of a layer
 * per step (its path match, its prefix trim, its params) for work that runs on every request. A step passes on
 * with `next()`; `next(err)`, a throw or a rejected promise goes to the error handlers, as in Express; a step that
 * answers and does not call `next` ends the request there.
 */
export function inOrder(steps: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next = (err?: unknown) => {
      if (err !== undefined && err !== null) return done(err);
      const step = steps[index++];
      if (!step) return done();
      try {
        const returned: unknown = step(req, res, next);
        if (returned instanceof Promise) returned.catch(done);
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
