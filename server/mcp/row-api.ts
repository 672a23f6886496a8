/**
 * The row API as the MCP tools call it: each tool call is one request of the public `/v1` API, dispatched in
 * process into the same Express app that serves HTTP (light-my-request builds the request and response objects;
 * no socket is opened). So a tool call passes the very pipeline an HTTP call does: the key, its scope and
 * allow-list, the rate limit (one take per call), the body's checks, idempotency, the handler and the request
 * log, which names the tool. Nothing here knows a rule of its own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { inject } from 'light-my-request';
import { markToolCall } from '../logs/tool-call.ts';

/** The app's request handler (an Express app is one). */
export type Dispatch = (req: IncomingMessage, res: ServerResponse) => void;

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

/** Who calls, as the MCP request that carries the tool call came: its key, and the Host and address it used. */
export interface RowApiCaller {
  authorization: string;
  host: string;
  remoteAddress: string;
}

export class RowApi {
  readonly #dispatch: Dispatch;
  readonly #caller: RowApiCaller;

  constructor(dispatch: Dispatch, caller: RowApiCaller) {
    this.#dispatch = dispatch;
    this.#caller = caller;
  }

  async call(request: RowApiRequest): Promise<RowApiAnswer> {
    const headers: Record<string, string> = {
      authorization: this.#caller.authorization,
      host: this.#caller.host,
    };
    for (const [name, value] of Object.entries(request.headers ?? {})) if (value) headers[name] = value;
    const query: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) query[name] = value;
    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const answer = await inject(
      (req, res) => {
        markToolCall(req, request.tool);
        keepOwnMethods(req);
        keepOwnMethods(res);
        this.#dispatch(req, res);
      },
      {
        method: request.method,
        url: request.path,
        query,
        headers,
        remoteAddress: this.#caller.remoteAddress,
        ...(payload !== undefined ? { payload } : {}),
      },
    );
    return { status: answer.statusCode, headers: plainHeaders(answer.headers), body: parsed(answer.payload) };
  }
}

/**
 * An Express app gives each request and response its own prototypes (`Object.setPrototypeOf`), which would drop
 * the methods by which light-my-request's objects capture the answer (`write`, `end`, ...) and feed the body.
 * Pinned as own properties they survive. (Passing the app itself to `inject` would make light-my-request re-parent
 * Express's shared prototypes instead, for every request the process serves: not done.)
 */
function keepOwnMethods(target: object): void {
  const own = target as Record<string, unknown>;
  const proto = Object.getPrototypeOf(target) as object;
  for (const name of Object.getOwnPropertyNames(proto)) {
    if (name === 'constructor' || Object.hasOwn(target, name)) continue;
    const value = Object.getOwnPropertyDescriptor(proto, name)?.value;
    if (typeof value === 'function') own[name] = value;
  }
}

function plainHeaders(headers: Record<string, unknown>): Record<string, string | undefined> {
  const plain: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    plain[name.toLowerCase()] = Array.isArray(value)
      ? value.join(', ')
      : value === undefined
        ? undefined
        : String(value);
  }
  return plain;
}

function parsed(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
