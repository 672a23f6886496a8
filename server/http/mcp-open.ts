/**
 * Opening an MCP session over Streamable HTTP (http/mcp.ts routes the requests): the part that needs the MCP SDK,
 * loaded with the first session.
 */
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { createMcpSession } from '../mcp/session.ts';
import type { ApiKeyRecord } from '../repositories/keys.ts';
import type { AppDeps } from './deps.ts';
import { jsonRpcError } from './json-rpc-error.ts';
import type { McpSessions } from './mcp-sessions.ts';
import { type RouteCalls, routeCallApi } from './route-call.ts';

/** A request without a session: the initialize request that opens one, or a 400. */
export async function openMcpSession(
  req: Request,
  res: Response,
  key: ApiKeyRecord,
  deps: Pick<AppDeps, 'mcp'>,
  sessions: McpSessions,
  calls: RouteCalls,
): Promise<void> {
  if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
    return jsonRpcError(res, 400, -32000, 'No Mcp-Session-Id: start with an initialize request.');
  }
  const admitted = { key };
  const mcp = createMcpSession({
    api: routeCallApi(calls, req, () => admitted.key),
    scope: key.scope,
    tabChanges: sessions.tabChanges,
    settings: deps.mcp,
  });
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (sessionId) =>
      sessions.add({
        id: sessionId,
        keyId: key.id,
        admitted,
        transport,
        close: mcp.close,
        lastUsed: sessions.now(),
      }),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.end(transport.sessionId);
  };
  await mcp.connect(transport);
  await transport.handleRequest(req, res, req.body);
}
