/**
 * The tray's "Copy MCP config": a new read_write key and the Claude Desktop config that uses it, put on the
 * clipboard. The running server makes both (`POST /admin/mcp-config`, the dashboard's route, with the admin
 * token over loopback), so the tray, the dashboard and `sheetport mcp config` give the same config. Everything it
 * touches is injected, so it is tested without Electron.
 */

export interface McpConfigServer {
  url: string;
  adminToken: string;
}

export interface McpConfigDeps {
  fetch: typeof fetch;
  /** The system clipboard (Electron's `clipboard.writeText`). */
  writeText(text: string): void;
}

interface McpConfigAnswer {
  id: string;
  configs: { claude_desktop: unknown; http: unknown };
}

/** Which config went on the clipboard: Claude Desktop's, or the Streamable HTTP form when this copy of
 * SheetPort has no command line to start (the packed app ships none). */
export type CopiedConfig = 'claude_desktop' | 'http';

export async function copyMcpConfig(server: McpConfigServer, deps: McpConfigDeps): Promise<CopiedConfig> {
  const res = await deps.fetch(`${server.url}/admin/mcp-config`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ scope: 'read_write', name: 'MCP client (tray)' }),
  });
  if (!res.ok)
    throw new Error(`The server refused to make an MCP config: HTTP ${res.status} ${await res.text()}`);
  const { configs } = (await res.json()) as McpConfigAnswer;
  const copied: CopiedConfig = configs.claude_desktop ? 'claude_desktop' : 'http';
  deps.writeText(JSON.stringify(configs[copied], null, 2));
  return copied;
}
