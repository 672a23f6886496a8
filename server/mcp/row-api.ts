/**
 * The row API as the MCP tools call it: each tool call is one HTTP request of the public `/v1` API, sent to the
 * very listener the MCP request came in on (loopback, or the tunnel's own listener), with the session's key. So
 * a tool call passes the pipeline every HTTP call does: the Host guard, the key, its scope and allow-list, the
 * rate limit (one take per call), the body's checks, idempotency, the handler and the request log, whose line
 * names the tool (logs/tool-call.ts). Nothing here knows a rule of its own.
 */
import { issueToolCall, TOOL_CALL_HEADER } from '../logs/tool-call.ts';

export interface RowApiRequest {
  tool: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
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

/** Where and as whom: the listener's origin, the MCP request's `Authorization` and `Host`. */
export interface RowApiCaller {
  origin: string;
  authorization: string;
  host: string;
}

export class RowApi {
  readonly #caller: RowApiCaller;

  constructor(caller: RowApiCaller) {
    this.#caller = caller;
  }

  async call(request: RowApiRequest): Promise<RowApiAnswer> {
    const url = new URL(request.path, this.#caller.origin);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    const toolCall = issueToolCall(request.tool);
    const headers = new Headers({
      authorization: this.#caller.authorization,
      host: this.#caller.host,
      [TOOL_CALL_HEADER]: toolCall.token,
    });
    for (const [name, value] of Object.entries(request.headers ?? {})) if (value) headers.set(name, value);
    if (request.body !== undefined) headers.set('content-type', 'application/json');
    try {
      const res = await fetch(url, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      });
      return { status: res.status, headers: Object.fromEntries(res.headers), body: parsed(await res.text()) };
    } finally {
      toolCall.forget();
    }
  }
}

function parsed(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
