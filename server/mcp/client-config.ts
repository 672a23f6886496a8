/**
 * The configuration snippets that add SheetPort to an MCP client, built from what they need and nothing else
 * (pure): the command that starts `sheetport mcp` on a data dir, the API key, and the running server's `/mcp` URL
 * when there is one. `sheetport mcp config`, the dashboard (`POST /admin/mcp-config`) and the tray's "Copy MCP
 * config" all print these, so every client is told the same thing.
 */
import type { CommandLaunch } from '../lib/sheetport-command.ts';

/** The name the server goes by in each client's list. */
export const MCP_SERVER_NAME = 'sheetport';

/** What a key made for an MCP client is called unless its maker names it. */
export const MCP_KEY_NAME = 'MCP client';

/** The environment variable the stdio command reads its key from (server/config.ts reads it). */
export const MCP_KEY_VARIABLE = 'SHEETPORT_KEY';

export interface McpClientConfigInput {
  /** How to start `sheetport mcp --data-dir <dir>` (absolute paths), or null when this copy has no CLI. */
  stdio: CommandLaunch | null;
  key: string;
  /** The running server's `/mcp` endpoint, or null when none runs on the data dir. */
  httpUrl: string | null;
}

interface StdioEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface McpClientConfigs {
  /** `claude_desktop_config.json`. */
  claude_desktop: { mcpServers: Record<string, StdioEntry> } | null;
  /** VS Code's `.vscode/mcp.json` (or the user's `mcp.json`). */
  vscode: { servers: Record<string, StdioEntry & { type: 'stdio' }> } | null;
  /** Cursor's `~/.cursor/mcp.json` (or a project's `.cursor/mcp.json`). */
  cursor: { mcpServers: Record<string, StdioEntry> } | null;
  /** The Streamable HTTP form, for a client that takes a URL, while a server runs. */
  http: { type: 'http'; url: string; headers: { Authorization: string } } | null;
}

/** Which client each snippet is for, in the order they are shown, with where it goes. */
export const MCP_CLIENTS: readonly { id: keyof McpClientConfigs; label: string; where: string }[] = [
  { id: 'claude_desktop', label: 'Claude Desktop', where: 'claude_desktop_config.json' },
  { id: 'vscode', label: 'VS Code', where: '.vscode/mcp.json' },
  { id: 'cursor', label: 'Cursor', where: '~/.cursor/mcp.json' },
  { id: 'http', label: 'Streamable HTTP', where: 'any client that takes a URL (while the server runs)' },
];

export function mcpClientConfigs(input: McpClientConfigInput): McpClientConfigs {
  const entry: StdioEntry | null = input.stdio
    ? {
        command: input.stdio.command,
        args: [...input.stdio.args],
        env: { ...input.stdio.env, [MCP_KEY_VARIABLE]: input.key },
      }
    : null;
  return {
    claude_desktop: entry ? { mcpServers: { [MCP_SERVER_NAME]: entry } } : null,
    vscode: entry ? { servers: { [MCP_SERVER_NAME]: { type: 'stdio', ...entry } } } : null,
    cursor: entry ? { mcpServers: { [MCP_SERVER_NAME]: entry } } : null,
    http: input.httpUrl
      ? { type: 'http', url: input.httpUrl, headers: { Authorization: `Bearer ${input.key}` } }
      : null,
  };
}

/** The arguments of `sheetport` that start the stdio server on `dataDir` (absolute). */
export function mcpCommandArgs(dataDir: string): string[] {
  return ['mcp', '--data-dir', dataDir];
}
