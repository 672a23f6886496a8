/**
 * The official MCP SDK's client, connected to a running SheetPort over Streamable HTTP (`/mcp`) with a bearer
 * key, and small readers of its answers.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

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
