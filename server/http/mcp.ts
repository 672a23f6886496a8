/**
 * `/mcp`: the MCP server over Streamable HTTP (protocol 2025-11-25), on the loopback listener and, while it is
 * open, the tunnel's. Every request needs a live API key as a bearer token (401 as on `/api` otherwise); a
 * session belongs to the key that opened it, and a request of another key cannot use it. The `/mcp` request
 * itself takes nothing from the key's rate limit: each tool call does, being one call of a route of the row API
 * (route-call.ts: that route's pipeline and handler, without HTTP), and so do resource reads and subscriptions.
 */
import type { Request, Response } from 'express';
import type { ApiKeyRecord } from '../repositories/keys.ts';
import type { AppDeps } from './deps.ts';
import { jsonRpcError } from './json-rpc-error.ts';
import type { McpSessions } from './mcp-sessions.ts';
import type { RouteCalls } from './route-call.ts';
import type { CarrierDeclaration, RouteTable } from './route-table.ts';

export const MCP_PATH = '/mcp';
/** A JSON-RPC message may carry a batch: `/mcp`'s bodies may be larger than the API's 5 MiB. */
export const MCP_MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Any key may open a session (a read key is offered the read tools); the pipeline checks the key and the body's
 * JSON (its bounds, type and size). `/mcp` carries calls of `/v1`: each is rate-limited and idempotent there.
 */
const MCP_ROUTE: CarrierDeclaration<'read', 'none'> = {
  access: 'read',
  resource: 'none',
  carrier: { maxBodyBytes: MCP_MAX_BODY_BYTES },
};

/** Declares `/mcp` in the route table: POST carries the client's messages, GET its stream, DELETE ends a session. */
export function mountMcpRoutes(
  routes: RouteTable,
  deps: Pick<AppDeps, 'mcp'>,
  sessions: McpSessions,
  calls: Omit<RouteCalls, 'routes'>,
): void {
  const handle = (req: Request, res: Response, { key }: { key: ApiKeyRecord }) =>
    handleMcp(req, res, key, deps, sessions, { ...calls, routes });
  routes.post(MCP_PATH, MCP_ROUTE, handle);
  routes.get(MCP_PATH, MCP_ROUTE, handle);
  routes.delete(MCP_PATH, MCP_ROUTE, handle);
}

/** One request of a session, or the initialize request that opens one. */
async function handleMcp(
  req: Request,
  res: Response,
  key: ApiKeyRecord,
  deps: Pick<AppDeps, 'mcp'>,
  sessions: McpSessions,
  calls: RouteCalls,
): Promise<void> {
  const id = req.get('mcp-session-id');
  if (id !== undefined) {
    const session = sessions.get(id);
    // Another key's session is answered as if it did not exist.
    if (!session || session.keyId !== key.id) return jsonRpcError(res, 404, -32001, 'Session not found.');
    session.lastUsed = sessions.now();
    session.admitted.key = key;
    return session.transport.handleRequest(req, res, req.body);
  }
  // The MCP SDK (and zod under it) loads with the first session, not with the service: most starts never use it.
  const { openMcpSession } = await import('./mcp-open.ts');
  return openMcpSession(req, res, key, deps, sessions, calls);
}
