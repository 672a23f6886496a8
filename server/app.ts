import express, { type Express, type RequestHandler, type Router } from 'express';
import { AccountLogins } from './http/account-logins.ts';
import { mountAdminRoutes, requireAdmin, requireLoopback } from './http/admin.ts';
import { mountAdminAccountRoutes } from './http/admin-accounts.ts';
import { mountAdminConnectionRoutes } from './http/admin-connections.ts';
import { mountAdminDeliveryRoutes } from './http/admin-deliveries.ts';
import { AdminEventStreams, mountAdminEventRoutes } from './http/admin-events.ts';
import { mountAdminMcpRoutes } from './http/admin-mcp.ts';
import { mountAdminQueryRoutes } from './http/admin-query.ts';
import { mountAdminRequestRoutes } from './http/admin-requests.ts';
import { mountAdminSignInRoutes } from './http/admin-sign-in.ts';
import { mountAdminTunnelRoutes, TUNNEL_OFF, TUNNEL_PATHS } from './http/admin-tunnel.ts';
import { mountAdminWebhookRoutes } from './http/admin-webhooks.ts';
import { mountAggregateRoutes } from './http/aggregate.ts';
import { jsonBody } from './http/body.ts';
import { corsBySegment } from './http/cors.ts';
import type { AppDeps } from './http/deps.ts';
import { clientText, errorAnswer, errorHandler, notFound } from './http/errors.ts';
import { freshOnlyWithEtag } from './http/freshness.ts';
import { exceptProbes, mountHealthRoutes } from './http/health.ts';
import { hostGuard } from './http/host-guard.ts';
import { inOrder } from './http/in-order.ts';
import { logRequests } from './http/log-requests.ts';
import { mountMcpRoutes } from './http/mcp.ts';
import { McpSessions } from './http/mcp-sessions.ts';
import { mountMetaRoutes } from './http/meta.ts';
import { methodNotAllowed } from './http/method-not-allowed.ts';
import { requestId } from './http/request-id.ts';
import { urlLimit } from './http/request-limits.ts';
import { type PipelineDeps, routePipeline } from './http/route-pipeline.ts';
import { type RouteEntry, RouteTable } from './http/route-table.ts';
import { mountRowRoutes } from './http/rows.ts';
import { uiRouter } from './http/ui.ts';
import { mountBatchRoutes } from './http/v1/batch.ts';
import { mountChangeFeedRoutes } from './http/v1/changes.ts';
import { mountDeliveryRoutes } from './http/v1/deliveries.ts';
import { mountRowsWhereRoutes } from './http/v1/rows-where.ts';
import { mountSheetRoutes } from './http/v1/sheets.ts';
import { mountSpreadsheetRoutes } from './http/v1/spreadsheets.ts';
import { mountUpsertRoutes } from './http/v1/upsert.ts';
import { mountWebhookRoutes } from './http/v1/webhooks.ts';
import type { RequestLog } from './logs/request-log.ts';
import type { TunnelStatus } from './tunnel/provider.ts';

/** The second parameter of a part's mount function (or constructor): the narrow shape of what it uses. */
type Uses<F extends (first: never, deps: never, ...rest: never[]) => unknown> = Parameters<F>[1];

/**
 * What createApp takes: what its parts take, together, each part declaring the narrow shape it uses
 * (http/deps.ts names the fields). The service context (context.ts) satisfies it structurally.
 */
export type AppServices = PipelineDeps &
  Uses<typeof mountHealthRoutes> &
  Uses<typeof mountAdminRoutes> &
  Uses<typeof mountAdminDeliveryRoutes> &
  Uses<typeof mountAdminConnectionRoutes> &
  Uses<typeof mountAdminQueryRoutes> &
  Uses<typeof mountAdminWebhookRoutes> &
  Uses<typeof mountAdminRequestRoutes> &
  Uses<typeof mountAdminEventRoutes> &
  Uses<typeof mountAdminSignInRoutes> &
  Uses<typeof mountAdminAccountRoutes> &
  Uses<typeof mountAdminMcpRoutes> &
  Uses<typeof mountSpreadsheetRoutes> &
  Uses<typeof mountChangeFeedRoutes> &
  Uses<typeof mountWebhookRoutes> &
  Uses<typeof mountDeliveryRoutes> &
  Uses<typeof mountMcpRoutes> &
  ConstructorParameters<typeof McpSessions>[0] &
  // What this file uses itself: the Host guard's names, the admin guard, the clock, the error log, the data dir.
  Pick<AppDeps, 'allowedHosts' | 'adminAccess' | 'now' | 'log' | 'dataDir'>;

export interface AppOptions {
  requestLog?: RequestLog | null;
  uiDir?: string | null;
  /**
   * `local` (default): everything, for the loopback listener. `tunnel`: the app the public tunnel reaches
   * (tunnel/switch.ts): only the `/api` and `/v1` routes, never `/ui`, `/admin` or `/`; the Host guard accepts
   * loopback names and `tunnelHosts()`; the client address is the tunnel's `X-Forwarded-For` (one trusted hop).
   */
  surface?: 'local' | 'tunnel';
  /** On the tunnel surface: the tunnel's public host name once it is open. */
  tunnelHosts?: () => readonly string[];
  /** On the local surface: what `GET /admin/tunnel` answers (off when absent). */
  tunnelStatus?: () => TunnelStatus;
}

const noSniff: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};

/** The tunnel-only app keeps a route when its path is `/mcp` or under `/api` or `/v1`, and it is not an admin route. */
function onTunnel(entry: RouteEntry): boolean {
  return (
    entry.access !== 'admin' &&
    entry.access !== 'sign_in' &&
    TUNNEL_PATHS.some((prefix) => entry.path === prefix || entry.path.startsWith(`${prefix}/`))
  );
}

/**
 * Builds the Express app from its parts. No listen, no globals: tests build many side by side.
 * Routes are declared with full paths, their access level and the resource they act on in one table
 * (route-table.ts); `routes` lists what it mounted (the OpenAPI and route pipeline tests read it).
 */
export function createApp(
  deps: AppServices,
  options: AppOptions = {},
): {
  app: Express;
  routers: readonly Router[];
  routes: readonly RouteEntry[];
  closeStreams: () => void;
} {
  const tunnel = options.surface === 'tunnel';
  const app = express();
  app.disable('x-powered-by');
  // Express would hash every body for a weak ETag; rows carry their own strong ETag instead, and only an answer
  // with one may be 304 (http/freshness.ts).
  app.set('etag', false);
  freshOnlyWithEtag(app);
  app.set('query parser', 'simple');
  // Only the tunnel-only listener sits behind a proxy, the tunnel's agent, which adds the client's address as the
  // last X-Forwarded-For entry: `req.ip` is that entry (an earlier one a client sent is ignored). The loopback
  // listener never trusts the header, so no local caller can pick its own rate-limit address.
  app.set('trust proxy', tunnel ? 1 : false);

  // What every request meets first, in this order, run as one step (in-order.ts): its id; the URL's bound, before
  // anything reads the URL (the redaction of logged URLs and every parser after it see a bounded one); the
  // request log, right after the id so every answer is logged, the Host guard's refusals too (not the health
  // probes, http/health.ts); the Host guard, which a load balancer's or orchestrator's probe passes whatever its
  // Host (it names the instance by its address); then the preflight and CORS headers of every /api, /v1 and /mcp
  // path, routed or not (who may call a route is its own access level's business, route-table.ts).
  app.use(
    inOrder([
      requestId(),
      urlLimit(),
      ...(options.requestLog ? [exceptProbes(logRequests(options.requestLog))] : []),
      noSniff,
      exceptProbes(hostGuard(tunnel ? (options.tunnelHosts ?? (() => [])) : deps.allowedHosts)),
      corsBySegment(),
    ]),
  );
  // The dashboard's files: loopback only, like /admin (ui.ts), and never mounted on the tunnel's app.
  if (!tunnel) app.use('/ui', options.uiDir === undefined ? uiRouter() : uiRouter(options.uiDir));
  const eventStreams = new AdminEventStreams(deps.now);
  // Every route's guards and the resource it acts on run in the route pipeline (http/route-pipeline.ts).
  const pipeline = routePipeline(deps, {
    public: [],
    admin: [requireAdmin(deps.adminAccess, (req) => eventStreams.admits(req)), jsonBody()],
    sign_in: [requireLoopback(), jsonBody()],
  });

  const routes = new RouteTable(pipeline, tunnel ? onTunnel : undefined);
  mountMetaRoutes(routes);
  mountHealthRoutes(routes, deps);
  mountAdminRoutes(routes, deps);
  mountAdminDeliveryRoutes(routes, deps);
  mountAdminConnectionRoutes(routes, deps);
  mountAdminQueryRoutes(routes, deps);
  mountAdminWebhookRoutes(routes, deps);
  mountAdminRequestRoutes(routes, deps);
  mountAdminEventRoutes(routes, deps, eventStreams);
  mountAdminSignInRoutes(routes, deps);
  // What the old credentials opened ends with them.
  deps.adminAccess.onRotate(() => eventStreams.closeAll());
  const logins = new AccountLogins(deps.now, clientText(deps.dataDir));
  mountAdminAccountRoutes(routes, deps, logins);
  mountAdminTunnelRoutes(routes, options.tunnelStatus ?? (() => TUNNEL_OFF));
  mountAdminMcpRoutes(routes, deps);
  mountApiRoutes(routes, deps);
  // The MCP server's tools call the routes above, in this table (http/route-call.ts).
  const answerError = errorAnswer(deps.log, deps.dataDir);
  const mcpSessions = new McpSessions(deps, deps.now);
  mountMcpRoutes(routes, deps, mcpSessions, { answerError, requestLog: options.requestLog ?? null });
  app.use(routes.routers.dispatch);
  app.use(methodNotAllowed(routes.routers.all));

  app.use(notFound);
  app.use(errorHandler(answerError));
  // What holds a connection or a listener open until the server stops: event streams, logins awaiting a browser.
  const closeStreams = () => {
    eventStreams.closeAll();
    mcpSessions.closeAll();
    logins.stopAll();
  };
  return { app, routers: routes.routers.all, routes: routes.entries, closeStreams };
}

/** The `/api` and `/v1` routes; those whose path ends where a row number could be (`aggregate`, `rows/upsert`) come
 * before the row routes, so they are never read as one. */
function mountApiRoutes(routes: RouteTable, deps: AppServices): void {
  mountAggregateRoutes(routes);
  mountRowRoutes(routes);
  mountSpreadsheetRoutes(routes, deps);
  mountUpsertRoutes(routes);
  mountRowsWhereRoutes(routes);
  mountSheetRoutes(routes);
  mountBatchRoutes(routes);
  mountChangeFeedRoutes(routes, deps);
  mountWebhookRoutes(routes, deps);
  mountDeliveryRoutes(routes, deps);
}
