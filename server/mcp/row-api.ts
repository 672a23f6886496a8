/**
 * The row API as the MCP tools call it: each tool call is one request of the public `/v1` API, made as the
 * session's key. So a tool call passes the pipeline every HTTP call does: the Host guard, the key, its scope and
 * allow-list, the rate limit (one take per call), the body's checks, idempotency, the handler and the request
 * log, whose line names the tool. The HTTP layer answers it (http/route-call.ts: the route's own pipeline and
 * handler, called without HTTP in the route table the session came in on); nothing here knows a rule of its own.
 */

export interface RowApiRequest {
  tool: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** The route as the API declares it, e.g. `/v1/sheets/:sheetId/rows/:row`. */
  route: string;
  /** Its path's parameters, as values (not percent-encoded). */
  params?: Record<string, string>;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** `If-Match`, `Idempotency-Key`. */
  headers?: Record<string, string | undefined>;
}

export interface RowApiAnswer {
  status: number;
  headers: Record<string, string | undefined>;
  /** The parsed JSON body; the text when it is not JSON; null when empty. */
  body: unknown;
}

export interface RowApi {
  call(request: RowApiRequest): Promise<RowApiAnswer>;
}
