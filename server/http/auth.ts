/**
 * Who calls an `/api` or `/v1` route (or `/mcp`), and what a key may reach. The route pipeline
 * (route-pipeline.ts) runs the key guard first and builds the caller of the route context from what it
 * admitted; the resource it resolves is checked with the caller's `reach` before the handler runs. Handlers
 * never call these: they are given the caller.
 */
import type { Request, Response } from 'express';
import { AppError } from '../errors.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type { ApiKeyRecord } from '../repositories/keys.ts';
import type { WebhookRecord } from '../repositories/webhooks.ts';
import type { AppDeps } from './deps.ts';
import { locals } from './locals.ts';
import { connectionOfPath } from './resolve/connection.ts';
import type { Caller, KeyAccess, RouteResponse } from './route-table.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

const MISSING_KEY = 'Missing API key: send "Authorization: Bearer <API_KEY>".';

/** Who the key guard let in: a key, or (on a `public_read` route, for a public-read connection) nobody. */
export interface Admitted<A extends KeyAccess = KeyAccess> {
  key: Caller<A>['key'];
  /** Whom the rate limit counts: the key's id, or `ip:<address>` for an anonymous public read. */
  subject: string;
}

/**
 * The key guard. Every `/api` and `/v1` route needs a live API key; the userKey in a path is never enough on
 * its own. The one exception, for routes declared `public_read`: a GET of the rows of a connection its owner
 * marked "public read" may come without a key; it is then limited per client address. `read_write` routes need
 * that scope. The admitted key's id is left for the request log line (the one thing of the caller that lives
 * on the response).
 */
export function keyGuard<A extends KeyAccess>(
  deps: Pick<AppDeps, 'keys' | 'connections'>,
  access: A,
): (req: Request, res: Response) => Promise<Admitted<A>> {
  return async (req, res) => {
    const header = req.headers.authorization;
    if (
      !header &&
      access === 'public_read' &&
      (await connectionOfPath(deps.connections, req))?.publicRead === true
    ) {
      // `req.ip` is the socket's address, except on the tunnel-only listener, which trusts exactly one proxy hop
      // (the tunnel's X-Forwarded-For): there each real client keeps its own limit (app.ts).
      return { key: null, subject: `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}` } as Admitted<A>;
    }
    return admitKey(await liveKey(deps, header), access, req.method, res);
  };
}

/**
 * A live key let in: its id left for the request log line, refused (403) on a `read_write` route unless it has
 * that scope. Also how a call its carrier admitted (an MCP tool's, route-call.ts) is let in: one look-up.
 */
export function admitKey<A extends KeyAccess>(
  record: ApiKeyRecord,
  access: A,
  method: string,
  res: RouteResponse,
): Admitted<A> {
  locals(res).loggedKeyId = record.id;
  if (access === 'read_write' && record.scope !== 'read_write') throw readOnlyKey(method);
  return { key: record, subject: record.id } as Admitted<A>;
}

/** The live key a bearer header names (401 for none, a malformed header, an unknown or a revoked key). */
async function liveKey(deps: Pick<AppDeps, 'keys'>, header: string | undefined): Promise<ApiKeyRecord> {
  if (!header) throw new AppError('unauthorized', MISSING_KEY);
  const match = BEARER.exec(header);
  if (!match) throw new AppError('unauthorized', 'Authorization header must be "Bearer <API_KEY>".');
  const record = await deps.keys.findByKey(match[1]!);
  if (!record) throw new AppError('unauthorized', 'Unknown API key.');
  if (record.revokedAt) throw new AppError('unauthorized', 'This API key has been revoked.');
  // A hint only, never failing the request (touch swallows a full disk): not awaited.
  void deps.keys.touch(record.id);
  return record;
}

/** A read of a route that needs read_write (the delivery log) is not a write: say which it is. */
function readOnlyKey(method = 'POST'): AppError {
  const what = method === 'GET' || method === 'HEAD' ? 'this route needs' : 'writes need';
  return new AppError('forbidden', `This API key is read-only; ${what} a key with scope read_write.`);
}

/** The key was made for these spreadsheets only (its allow-list), or for every one (an empty list). */
export function mayReach(key: ApiKeyRecord, spreadsheetId: string): boolean {
  return key.connections.length === 0 || key.connections.includes(spreadsheetId);
}

/**
 * The caller of a route context, from what the key guard admitted, with the check of a connection against it:
 * an anonymous caller reaches public-read connections only (401 otherwise, as for a missing key); a key, those
 * on its allow-list (403).
 */
export function callerOf<A extends KeyAccess>({ key }: Admitted<A>): Caller<A> {
  return {
    key,
    reach(connection: ConnectionRecord) {
      if (key === null) {
        if (connection.publicRead) return;
        throw new AppError('unauthorized', MISSING_KEY);
      }
      if (!mayReach(key, connection.spreadsheetId)) {
        throw new AppError('forbidden', 'This API key is not allowed to reach this spreadsheet.');
      }
    },
  };
}

/**
 * A webhook belongs to the API key that registered it: through `/v1` only that key sees and manages it, and only
 * while it still reaches the spreadsheet. Another key on the same spreadsheet could otherwise re-point the URL
 * to itself and replay a delivery, capturing a signed notification meant for someone else. Webhooks registered
 * by the dashboard or the CLI have no key (apiKeyId null): no key sees them; the admin surface and the CLI
 * manage every webhook.
 */
export function keyOwns(key: ApiKeyRecord, w: WebhookRecord): boolean {
  return w.apiKeyId === key.id && mayReach(key, w.spreadsheetId);
}
