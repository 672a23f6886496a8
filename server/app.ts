import express, { type Express, type RequestHandler, Router } from 'express';
import { mountAdminRoutes, requireAdmin } from './http/admin.ts';
import { mountAdminConnectionRoutes } from './http/admin-connections.ts';
import { mountAdminDeliveryRoutes } from './http/admin-deliveries.ts';
import { AdminEventStreams, mountAdminEventRoutes } from './http/admin-events.ts';
import { mountAdminRequestRoutes } from './http/admin-requests.ts';
import { mountAdminWebhookRoutes } from './http/admin-webhooks.ts';
import { requireApiKey } from './http/auth.ts';
import { jsonBody } from './http/body.ts';
import { apiCors } from './http/cors.ts';
import type { AppDeps } from './http/deps.ts';
import { errorHandler, notFound } from './http/errors.ts';
import { hostGuard } from './http/host-guard.ts';
import { idempotency } from './http/idempotency.ts';
import { mountMetaRoutes } from './http/meta.ts';
import { methodNotAllowed } from './http/method-not-allowed.ts';
import { rateLimit } from './http/rate-limit.ts';
import { requestId } from './http/request-id.ts';
import { logRequests } from './http/request-log.ts';
import { type Access, RouteTable } from './http/route-table.ts';
import { mountRowRoutes } from './http/rows.ts';
import { uiRouter } from './http/ui.ts';
import { mountBatchRoutes } from './http/v1/batch.ts';
import { mountChangeFeedRoutes } from './http/v1/changes.ts';
import { mountDeliveryRoutes } from './http/v1/deliveries.ts';
import { mountSheetRoutes } from './http/v1/sheets.ts';
import { mountSpreadsheetRoutes } from './http/v1/spreadsheets.ts';
import { mountWebhookRoutes } from './http/v1/webhooks.ts';
import type { RequestLog } from './logs/request-log.ts';

export type { AppDeps } from './http/deps.ts';

/**
 * Builds the Express app from its parts. No listen, no globals: tests build many side by side.
 * Routes are declared with full paths and their access level in one table (route-table.ts); the OpenAPI test
 * lists it.
 */
export function createApp(
  deps: AppDeps,
  options: { requestLog?: RequestLog | null; uiDir?: string | null } = {},
): { app: Express; router: Router; closeStreams: () => void } {
  const app = express();
  app.disable('x-powered-by');
  // Express would hash every body for a weak ETag; rows carry their own strong ETag instead.
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use(requestId());
  // Right after the id, so every answer is logged, including the Host guard's refusals.
  if (options.requestLog) app.use(logRequests(options.requestLog));
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  app.use(hostGuard(deps.allowedHosts));

  // Preflight and CORS headers for every /api and /v1 path, routed or not; who may call a route is its own
  // access level's business (route-table.ts).
  app.use('/api', apiCors());
  app.use('/v1', apiCors());
  // The dashboard's files: loopback only, like /admin (ui.ts).
  app.use('/ui', options.uiDir === undefined ? uiRouter() : uiRouter(options.uiDir));
  const eventStreams = new AdminEventStreams(deps.now);
  const keyed = (access: 'public_read' | 'read' | 'write'): RequestHandler[] => [
    requireApiKey(deps.keys, deps.connections, access),
    ...(deps.limiter ? [rateLimit(deps.limiter)] : []),
    jsonBody(),
    idempotency(deps.idempotency),
  ];
  const guardsOf: Record<Access, RequestHandler[]> = {
    public: [],
    public_read: keyed('public_read'),
    read: keyed('read'),
    write: keyed('write'),
    admin: [requireAdmin(deps.adminToken, (req) => eventStreams.admits(req)), jsonBody()],
  };

  const router = Router();
  const routes = new RouteTable(router, (access) => guardsOf[access]);
  mountMetaRoutes(routes);
  mountAdminRoutes(routes, deps);
  mountAdminDeliveryRoutes(routes, deps);
  mountAdminConnectionRoutes(routes, deps);
  mountAdminWebhookRoutes(routes, deps);
  mountAdminRequestRoutes(routes, deps);
  mountAdminEventRoutes(routes, deps, eventStreams);
  mountRowRoutes(routes, deps);
  mountSpreadsheetRoutes(routes, deps);
  mountSheetRoutes(routes, deps);
  mountBatchRoutes(routes, deps);
  mountChangeFeedRoutes(routes, deps);
  mountWebhookRoutes(routes, deps);
  mountDeliveryRoutes(routes, deps);
  app.use(router);
  app.use(methodNotAllowed(router));

  app.use(notFound);
  app.use(errorHandler(deps.log));
  return { app, router, closeStreams: () => eventStreams.closeAll() };
}
