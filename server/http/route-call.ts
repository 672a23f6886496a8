/**
 * The MCP tools' row API (mcp/row-api.ts), answered without HTTP: each tool call is a call of one declared route
 * of `/v1` in the route table the session's `/mcp` request came in on (the loopback app's, or the tunnel's), as
 * the key that request admitted (route-table.ts `call`). The route's own pipeline runs (scope, allow-list, rate
 * limit, the body's size, Idempotency-Key, the resource) and its own handler, on a plain request and a plain
 * answer: no socket, no HTTP text, no second pass through the app's middleware, which the `/mcp` request passed
 * already (the Host guard, CORS, the request id). Failures are answered in the API's envelope, and each call is
 * one line of the request log naming its tool.
 */
import type { OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import type { Request } from 'express';
import type { RequestLog } from '../logs/request-log.ts';
import type { RowApi, RowApiAnswer, RowApiRequest } from '../mcp/row-api.ts';
import type { ApiKeyRecord } from '../repositories/keys.ts';
import type { AnswerError } from './errors.ts';
import { locals } from './locals.ts';
import { writeLogLine } from './log-requests.ts';
import { newRequestId } from './request-id.ts';
import type { RouteRequest, RouteResponse, RouteTable } from './route-table.ts';

/** What calls need of the app they are made in: its routes, its error envelope, its request log. */
export interface RouteCalls {
  routes: RouteTable;
  answerError: AnswerError;
  requestLog: RequestLog | null;
}

/** `admitted` is the key of the `/mcp` request now being answered, the one whose tool call is made. */
export function routeCallApi(calls: RouteCalls, session: Request, admitted: () => ApiKeyRecord): RowApi {
  // Where the session's requests came to: the `Link` of a listing points there.
  const origin = { protocol: session.protocol, host: session.get('host') };
  return {
    async call(request: RowApiRequest): Promise<RowApiAnswer> {
      const started = performance.now();
      const req = new CalledRequest(request, origin);
      const res = new CalledAnswer();
      locals(res).requestId = newRequestId();
      try {
        await calls.routes.call(`${request.method} ${request.route}`, req, res, admitted());
      } catch (err) {
        calls.answerError(err, req, res);
      }
      if (calls.requestLog) writeLogLine(calls.requestLog, req, res, started, request.tool);
      return { status: res.statusCode, headers: res.headerValues(), body: parsed(res.text) };
    },
  };
}

class CalledRequest implements RouteRequest {
  readonly method: string;
  readonly originalUrl: string;
  readonly protocol: string;
  readonly params: Record<string, string>;
  readonly query: Record<string, string>;
  body: unknown;
  readonly headers: Record<string, string>;

  constructor(request: RowApiRequest, origin: { protocol: string; host: string | undefined }) {
    this.method = request.method;
    this.protocol = origin.protocol;
    this.params = request.params ?? {};
    this.query = {};
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) this.query[name] = value;
    this.body = request.body;
    this.headers = origin.host === undefined ? {} : { host: origin.host };
    for (const [name, value] of Object.entries(request.headers ?? {}))
      if (value) this.headers[name.toLowerCase()] = value;
    this.originalUrl = urlOf(request.route, this.params, this.query);
  }

  get(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }
}

/** The answer as the handler writes it: status, headers, and the text of its body, finished by `send` or `end`. */
class CalledAnswer implements RouteResponse {
  statusCode = 200;
  headersSent = false;
  writableFinished = false;
  locals: Record<string, unknown> = {};
  text = '';
  readonly #headers = new Map<string, OutgoingHttpHeader>();
  readonly #listeners = { finish: [] as (() => void)[], close: [] as (() => void)[] };

  status(code: number): this {
    this.statusCode = code;
    return this;
  }

  setHeader(name: string, value: OutgoingHttpHeader): this {
    this.#headers.set(name.toLowerCase(), value);
    return this;
  }

  getHeader(name: string): OutgoingHttpHeader | undefined {
    return this.#headers.get(name.toLowerCase());
  }

  getHeaders(): OutgoingHttpHeaders {
    return Object.fromEntries(this.#headers);
  }

  json(body: unknown): unknown {
    if (!this.#headers.has('content-type')) this.setHeader('content-type', 'application/json; charset=utf-8');
    // Through `send`, as Express's does: a step that watches what is sent (idempotency.ts) sees it.
    return this.send(JSON.stringify(body));
  }

  send(body?: unknown): this {
    if (typeof body === 'string') this.text = body;
    else if (Buffer.isBuffer(body)) this.text = body.toString('utf8');
    else if (body !== undefined) this.text = String(body);
    return this.end();
  }

  end(): this {
    if (this.writableFinished) return this;
    this.headersSent = true;
    this.writableFinished = true;
    for (const listener of this.#listeners.finish) listener();
    for (const listener of this.#listeners.close) listener();
    return this;
  }

  on(event: 'finish' | 'close', listener: () => void): this {
    this.#listeners[event].push(listener);
    return this;
  }

  /** Names in lower case; a repeated header joined with ", ". */
  headerValues(): Record<string, string | undefined> {
    const values: Record<string, string | undefined> = {};
    for (const [name, value] of this.#headers)
      values[name] = Array.isArray(value) ? value.join(', ') : String(value);
    return values;
  }
}

/** The path and query the call would have had on the wire (the request log, `Link`, the idempotency fingerprint). */
function urlOf(route: string, params: Record<string, string>, query: Record<string, string>): string {
  const path = route.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const text = new URLSearchParams(query).toString();
  return text ? `${path}?${text}` : path;
}

function parsed(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
