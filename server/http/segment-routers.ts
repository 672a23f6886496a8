/**
 * The app's routes, one Express router per first path segment (`admin`, `api`, `v1`, `mcp`, ...). Express walks a
 * router's layers one by one and runs each one's pattern, so with every route in one router an `/api` read was
 * tried against forty `/admin` patterns first: about a sixth of a list request's CPU (docs/performance.md).
 * Here a request meets only the routes whose path begins as its own does, and Express still does the matching.
 */
import { type RequestHandler, Router } from 'express';

/** The first segment of a path: `api` of `/api/spreadsheets/x`, `` of `/`. */
export function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end < 0 ? path.slice(1) : path.slice(1, end);
}

export class SegmentRouters {
  readonly #routers = new Map<string, Router>();

  /**
   * The router a declared path belongs in. Its first segment must be literal: a parameter or a pattern there
   * would match requests of every segment, so it could not be kept apart.
   */
  for(path: string): Router {
    const segment = firstSegment(path).toLowerCase();
    if (!/^[\w.-]*$/.test(segment)) throw new Error(`${path}: a route's first path segment must be literal`);
    let router = this.#routers.get(segment);
    if (!router) {
      router = Router();
      this.#routers.set(segment, router);
    }
    return router;
  }

  /** Every router, for what reads the mounted routes (the 405 answers, the OpenAPI check). */
  get all(): readonly Router[] {
    return [...this.#routers.values()];
  }

  /**
   * Hands a request to its segment's router, or on. Express matches paths without regard to case, so the
   * segment is looked up in lower case; the router's own patterns then decide, as before.
   */
  readonly dispatch: RequestHandler = (req, res, next) => {
    const router = this.#routers.get(firstSegment(req.path).toLowerCase());
    if (router) router(req, res, next);
    else next();
  };
}
