/**
 * Which MCP tool made a request of the row API. The MCP server dispatches each tool call as one in-process
 * request (mcp/row-api.ts) and marks it here; the request log line then names the tool. A mark cannot come from
 * outside: it is set on the request object itself, never read from a header a client could send.
 */
const tools = new WeakMap<object, string>();

export function markToolCall(req: object, tool: string): void {
  tools.set(req, tool);
}

export function toolCallOf(req: object): string | undefined {
  return tools.get(req);
}
