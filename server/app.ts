import express, { type Express, Router } from 'express';
import { mountAdminRoutes, requireAdmin } from './http/admin.ts';
import { mountAdminDeliveryRoutes } from './http/admin-deliveries.ts';
import { requireApiKey } from './http/auth.ts';
import { jsonBody } from './http/body.ts';
import { apiCors } from './http/cors.ts';
import type { AppDeps } from './http/deps.ts';
import { errorHandler, notFound } from './http/errors.ts';
import { hostGuard } from './http/host-guard.ts';
import { idempotency } from './http/idempotency.ts';
import { methodNotAllowed } from './http/method-not-allowed.ts';
import { mountOpenApi } from './http/openapi.ts';
import { rateLimit } from './http/rate-limit.ts';
import { requestId } from './http/request-id.ts';
import { logRequests } from './http/request-log.ts';
import { mountRowRoutes } from './http/rows.ts';
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
 * Routes are registered with full paths on one router so the route table can be listed (the OpenAPI test does).
 */
export function createApp(
  deps: AppDeps,
  options: { requestLog?: RequestLog | null } = {},
): { app: Express; router: Router } {
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

  const keyed = [
    apiCors(),
    requireApiKey(deps.keys, deps.connections),
    ...(deps.limiter ? [rateLimit(deps.limiter)] : []),
    jsonBody(),
    idempotency(deps.idempotency),
  ];
  app.use('/api', ...keyed);
  app.use('/v1', ...keyed);
  app.use('/admin', requireAdmin(deps.adminToken));

  const router = Router();
  mountOpenApi(router);
  mountAdminRoutes(router, deps);
  mountAdminDeliveryRoutes(router, deps);
  mountRowRoutes(router, deps);
  mountSpreadsheetRoutes(router, deps);
  mountSheetRoutes(router, deps);
  mountBatchRoutes(router, deps);
  mountChangeFeedRoutes(router, deps);
  mountWebhookRoutes(router, deps);
  mountDeliveryRoutes(router, deps);
  app.use(router);
  app.use(methodNotAllowed(router));

  app.use(notFound);
  app.use(errorHandler(deps.log));
  return { app, router };
}
