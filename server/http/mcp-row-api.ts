/**
 * The MCP tools' row API (mcp/row-api.ts), answered in process: each call is one request of `/v1` run through
 * the very Express app the session's `/mcp` request came in on (the loopback app, or the tunnel's, with its
 * routes and Host guard), from the client's address, marked with its tool for the request log and with the key
 * the carrying `/mcp` request admitted (carried-call.ts: the key guard does not look it up again). No socket, no
 * second HTTP parse (in-process-request.ts): the rest of the API's pipeline (scope, allow-list, rate limit, body,
 * Idempotency-Key) and the request log run for the call as for any request.
 */
import type { Request } from 'express';
import type { RowApi, RowApiAnswer, RowApiRequest } from '../mcp/row-api.ts';
import type { ApiKeyRecord } from '../repositories/keys.ts';
import { markCarried } from './carried-call.ts';
import { type RequestListener, requestInProcess, type SocketAddresses } from './in-process-request.ts';

/** What every call of a session is sent with: the `/mcp` request's Host and forwarded address. */
const CARRIED = ['host', 'x-forwarded-for'] as const;

/** `admitted` is the key of the `/mcp` request now being answered, the one whose tool call is made. */
export function inProcessRowApi(session: Request, admitted: () => ApiKeyRecord): RowApi {
  const app = session.app as unknown as RequestListener;
  const { remoteAddress, remotePort, localAddress, localPort } = session.socket;
  const from: SocketAddresses = { remoteAddress, remotePort, localAddress, localPort };
  const carried: Record<string, string> = {};
  for (const name of CARRIED) {
    const value = session.headers[name];
    if (typeof value === 'string') carried[name] = value;
  }
  return {
    async call(request: RowApiRequest): Promise<RowApiAnswer> {
      const headers = { ...carried };
      for (const [name, value] of Object.entries(request.headers ?? {}))
        if (value) headers[name.toLowerCase()] = value;
      let body: Buffer | undefined;
      if (request.body !== undefined) {
        body = Buffer.from(JSON.stringify(request.body));
        headers['content-type'] = 'application/json';
      }
      const answer = await requestInProcess(
        app,
        { method: request.method, url: urlOf(request), headers, ...(body ? { body } : {}) },
        from,
        (req) => markCarried(req, { tool: request.tool, key: admitted() }),
      );
      return { status: answer.status, headers: answer.headers, body: parsed(answer.body.toString('utf8')) };
    },
  };
}

function urlOf(request: RowApiRequest): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {}))
    if (value !== undefined) query.set(name, value);
  const text = query.toString();
  return text ? `${request.path}?${text}` : request.path;
}

function parsed(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
