/**
 * The official MCP SDK's client, connected to a running SheetPort over Streamable HTTP (`/mcp`) with a bearer
 * key, and small readers of its answers.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { writeServerInfo } from '../../server/server-info.ts';
import { cliEnv, SHEETPORT_BIN } from './cli.ts';
import type { Harness } from './harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: tests read answers' JSON freely
export type AnyJson = any;

export async function mcpOverHttp(baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'sheetport-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/**
 * `sheetport mcp` spawned by the SDK's stdio client, as Claude Desktop starts it, on the harness's data dir: the
 * harness's server is written down as the data dir's running server, so the command passes the messages to
 * its `/mcp`.
 */
export async function mcpOverStdio(h: Harness, key: string): Promise<Client> {
  const port = Number(new URL(h.url).port);
  await writeServerInfo(h.context.dataDir, { url: h.url, port, pid: process.pid });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SHEETPORT_BIN, 'mcp', '--data-dir', h.context.dataDir],
    env: cliEnv({ SHEETPORT_KEY: key }) as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'sheetport-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

export type McpTransportName = 'streamable-http' | 'stdio';
export const MCP_TRANSPORTS: readonly McpTransportName[] = ['streamable-http', 'stdio'];

/** A client of the harness's MCP server with `key`, over the transport named. */
export function mcpClient(transport: McpTransportName, h: Harness, key: string): Promise<Client> {
  return transport === 'stdio' ? mcpOverStdio(h, key) : mcpOverHttp(h.url, key);
}

/** A tool call's structured content; throws with the tool's error when it is one. */
export async function callOk(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<AnyJson> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError)
    throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent ?? result.content)}`);
  return result.structuredContent;
}

/** A tool call that must fail: its error (`structuredContent.error`: code, message, status, details). */
export async function callError(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ code: string; message: string; status: number; details?: AnyJson }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`${name} succeeded: ${JSON.stringify(result.structuredContent)}`);
  return (result.structuredContent as AnyJson).error;
}

/** The scope of the key a config carries, as the server lists it, after checking the key reads `/v1`. */
export async function scopeOfWorkingKey(
  service: { url: string; adminToken: string },
  key: string,
): Promise<string[]> {
  const res = await fetch(`${service.url}/v1/spreadsheets`, { headers: { Authorization: `Bearer ${key}` } });
  await res.body?.cancel();
  if (res.status !== 200) throw new Error(`the config's key reads /v1/spreadsheets with HTTP ${res.status}`);
  const keys = (await (
    await fetch(`${service.url}/admin/keys`, { headers: { Authorization: `Bearer ${service.adminToken}` } })
  ).json()) as { data: { prefix: string; scope: string }[] };
  return keys.data.filter((k) => key.startsWith(k.prefix)).map((k) => k.scope);
}

/** An `initialize` request as a client sends it first, for tests that speak JSON-RPC to `sheetport mcp` by hand. */
export function initializeMessage(id: string | number) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    },
  };
}
