import { type Router as ExpressRouter, Router } from 'express';
import { AppError } from '../errors.ts';

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/**
 * For a path that exists with other methods, 405 with an `Allow` header instead of a bare 404, so a client
 * that PUTs to the collection learns what it may do there. Built from the route table, so it never drifts.
 */
export function methodNotAllowed(routes: ExpressRouter): ExpressRouter {
  const allowed = new Map<string, Set<string>>();
  for (const layer of routes.stack as RouteLayer[]) {
    if (!layer.route) continue;
    const methods = allowed.get(layer.route.path) ?? new Set<string>();
    for (const m of Object.keys(layer.route.methods)) methods.add(m.toUpperCase());
    allowed.set(layer.route.path, methods);
  }
  const router = Router();
  for (const [path, methods] of allowed) {
    if (methods.has('GET')) methods.add('HEAD');
    const allow = [...methods].sort().join(', ');
    router.all(path, (req, res, next) => {
      res.setHeader('Allow', allow);
      next(new AppError('method_not_allowed', `${req.method} is not allowed here; allowed: ${allow}.`));
    });
  }
  return router;
}
