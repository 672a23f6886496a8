/**
 * Which MCP tool made a request of the row API. The MCP server sends each tool call as one request of the row
 * API (mcp/row-api.ts) carrying a one-time token in `X-SheetPort-Tool-Call`; the request log line then names the
 * tool. A client cannot name a tool for its own requests: only a token this process issued and has not yet seen
 * finds one.
 */
import { randomBytes } from 'node:crypto';

export const TOOL_CALL_HEADER = 'x-sheetport-tool-call';

const pending = new Map<string, string>();

/** A token for one request made for `tool`; `toolCallOf` takes it back once. */
export function issueToolCall(tool: string): { token: string; forget(): void } {
  const token = randomBytes(16).toString('base64url');
  pending.set(token, tool);
  return { token, forget: () => pending.delete(token) };
}

/** The tool a request's token was issued for (the token is spent), or undefined. */
export function toolCallOf(token: string | string[] | undefined): string | undefined {
  if (typeof token !== 'string') return undefined;
  const tool = pending.get(token);
  pending.delete(token);
  return tool;
}
