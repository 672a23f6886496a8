import {
  type Router as ExpressRouter,
  type NextFunction,
  type Request,
  type Response,
  Router,
} from 'express';
import { AppError } from '../errors.ts';

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/**
 * For a path that exists with other methods, 405 with an `Allow` header instead of a bare 404, so a client
 * that PUTs to the collection learns what it may do there. Built from the route table, so it never drifts.
 */
export function methodNotAllowed(routers: readonly ExpressRouter[]): ExpressRouter {
  const allowed = new Map<string, Set<string>>();
  for (const layer of routers.flatMap((r) => r.stack) as RouteLayer[]) {
    if (!layer.route) continue;
    const methods = allowed.get(layer.route.path) ?? new Set<string>();
    for (const m of Object.keys(layer.route.methods)) methods.add(m.toUpperCase());
    allowed.set(layer.route.path, methods);
  }
  const router = Router();
  for (const [path, methods] of allowed) {
    if (methods.has('GET')) methods.add('HEAD');
    const allow = [...methods].sort().join(', ');
    router.all(path, (req, res, next) => refuseMethod(req, res, next, allow));
  }
  return router;
}

/**
 * A literal path that a parameter's route beside it would otherwise take (`rows/batchUpdate` beside
 * `rows/:row`): its own methods pass on to its routes, any other is 405 as for any path, not that route's answer.
 * Mounted before the parameter's routes; not a route itself, so the table and the `Allow` list are unchanged.
 */
export function reservePath(router: ExpressRouter, path: string, methods: readonly string[]): void {
  const allow = [...methods].sort().join(', ');
  router.use(path, (req, res, next) => {
    // `use` matches the path as a prefix; only the path itself is reserved.
    if (req.path !== '/' || methods.includes(req.method)) next();
    else refuseMethod(req, res, next, allow);
  });
}

function refuseMethod(req: Request, res: Response, next: NextFunction, allow: string): void {
  res.setHeader('Allow', allow);
  next(new AppError('method_not_allowed', `${req.method} is not allowed here; allowed: ${allow}.`));
}
