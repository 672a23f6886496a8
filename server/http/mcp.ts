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
import { ChangedTabsWatch } from '../changes/changed-tabs.ts';
import { RowApi } from '../mcp/row-api.ts';
import { createMcpSession } from '../mcp/session.ts';
import { requireApiKey } from './auth.ts';
import type { AppDeps } from './deps.ts';
import { locals } from './locals.ts';

export const MCP_PATH = '/mcp';
/** A session nobody has used for this long is closed (its client starts a new one if it comes back). */
const IDLE_MS = 30 * 60_000;
/** Sessions one key may hold open; a new one beyond it closes that key's least recently used. */
const SESSIONS_PER_KEY = 32;

interface Session {
  id: string;
  keyId: string;
  transport: StreamableHTTPServerTransport;
  close(): void;
  lastUsed: number;
}

export class McpSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #sweep: NodeJS.Timeout;
  readonly watch: ChangedTabsWatch;
  readonly now: () => number;

  constructor(deps: AppDeps, now: () => number) {
    this.now = now;
    this.watch = new ChangedTabsWatch({ changeLog: deps.changeLog, log: deps.log });
    this.#sweep = setInterval(() => this.#closeIdle(), 60_000);
    this.#sweep.unref();
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  add(session: Session): void {
    this.#sessions.set(session.id, session);
    const ofKey = [...this.#sessions.values()].filter((s) => s.keyId === session.keyId);
    if (ofKey.length > SESSIONS_PER_KEY) {
      const oldest = ofKey.reduce((a, b) => (a.lastUsed <= b.lastUsed ? a : b));
      this.end(oldest.id);
    }
  }

  end(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    session.close();
  }

  closeAll(): void {
    clearInterval(this.#sweep);
    for (const id of [...this.#sessions.keys()]) this.end(id);
    this.watch.stop();
  }

  #closeIdle(): void {
    const before = this.now() - IDLE_MS;
    for (const session of [...this.#sessions.values()]) if (session.lastUsed < before) this.end(session.id);
  }
}

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
  router.use(express.json({ limit: '8mb' }));
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
    const mcp = createMcpSession({ api, scope: key.scope, watch: sessions.watch, settings: deps.mcp });
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
