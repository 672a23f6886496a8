/**
 * `/mcp`: the MCP server over Streamable HTTP (protocol 2025-11-25), on the loopback listener and, while it is
 * open, the tunnel's. Every request needs a live API key as a bearer token (401 as on `/api` otherwise); a
 * session belongs to the key that opened it, and a request of another key cannot use it. The `/mcp` request
 * itself takes nothing from the key's rate limit: each tool call does, being one request of the row API
 * (mcp/row-api.ts), and so do resource reads and subscriptions.
 */
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import express, { type Express, type Request, type Response, Router } from 'express';
import { RowApi } from '../mcp/row-api.ts';
import { createMcpSession } from '../mcp/session.ts';
import { requireApiKey } from './auth.ts';
import type { AppDeps } from './deps.ts';
import { refuseOversizedJson } from './json-bounds.ts';
import { locals } from './locals.ts';
import type { McpSessions } from './mcp-sessions.ts';

export const MCP_PATH = '/mcp';

function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * The listener the request came in on, as an origin: the tools' requests go there, so on the tunnel's listener
 * they pass the tunnel app's routes and Host guard, and on loopback the loopback app's.
 */
function listenerOrigin(req: Request): string {
  const address = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `http://${address.includes(':') ? `[${address}]` : address}:${req.socket.localPort}`;
}

/** Mounts `/mcp` on `app`, beside the routes the tools call. */
export function mountMcp(app: Express, deps: AppDeps, sessions: McpSessions): void {
  const router = Router();
  router.use(requireApiKey(deps.keys, deps.connections, 'read'));
  // The bounds of every request body (json-bounds.ts), checked before this parser reads the bytes.
  router.use(express.json({ limit: '8mb', verify: (_req, _res, bytes) => refuseOversizedJson(bytes) }));
  router.all('/', async (req: Request, res: Response) => {
    const key = locals(res).apiKey!;
    const id = req.get('mcp-session-id');
    if (id !== undefined) {
      const session = sessions.get(id);
      // Another key's session is answered as if it did not exist.
      if (!session || session.keyId !== key.id) return jsonRpcError(res, 404, -32001, 'Session not found.');
      session.lastUsed = sessions.now();
      return session.transport.handleRequest(req, res, req.body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      return jsonRpcError(res, 400, -32000, 'No Mcp-Session-Id: start with an initialize request.');
    }
    const api = new RowApi({
      origin: listenerOrigin(req),
      authorization: req.headers.authorization ?? '',
      host: req.headers.host ?? '127.0.0.1',
    });
    const mcp = createMcpSession({
      api,
      scope: key.scope,
      tabChanges: sessions.tabChanges,
      settings: deps.mcp,
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) =>
        sessions.add({ id: sessionId, keyId: key.id, transport, close: mcp.close, lastUsed: sessions.now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.end(transport.sessionId);
    };
    await mcp.server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.use(MCP_PATH, router);
}
