/**
 * Which MCP tool made a request of the row API. The MCP server runs each tool call as one request of the row API
 * in process (http/mcp-row-api.ts) and marks the request object it builds; the request log line then names the
 * tool. A client cannot name a tool for its own requests: the mark is a property of the request object under a
 * symbol of this module, never read from anything a request carries. Nothing is kept here: the mark lives and
 * goes with its request.
 */
const TOOL = Symbol('sheetport.toolCall');

type Marked = { [TOOL]?: string };

/** Marks `req` as the request of a call of `tool`. */
export function markToolCall(req: object, tool: string): void {
  (req as Marked)[TOOL] = tool;
}

/** The tool whose call `req` is, or undefined for a plain HTTP request. */
export function toolCallOf(req: object): string | undefined {
  return (req as Marked)[TOOL];
}
