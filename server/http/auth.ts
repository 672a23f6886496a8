/**
 * Who calls an `/api` or `/v1` route, and what a key may reach. The route pipeline (route-pipeline.ts) runs
 * `requireApiKey` first, and checks the key against the resource it resolves with `reachOf` before the
 * handler runs; handlers never call these.
 */
import type { RequestHandler, Response } from 'express';
import { AppError } from '../errors.ts';
import type { ConnectionRecord, Connections } from '../repositories/connections.ts';
import type { ApiKeyRecord, Keys } from '../repositories/keys.ts';
import type { WebhookRecord } from '../repositories/webhooks.ts';
import { locals } from './locals.ts';
import { connectionOfPath } from './resolve/connection.ts';
import type { KeyAccess } from './route-table.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

const MISSING_KEY = 'Missing API key: send "Authorization: Bearer <API_KEY>".';

/**
 * Every `/api` and `/v1` route needs a live API key; the userKey in a path is never enough on its own. The one
 * exception, for routes declared `public_read`: a GET of the rows of a connection its owner marked "public
 * read" may come without a key; it is then limited per client address. `read_write` routes need that scope.
 */
export function requireApiKey(keys: Keys, connections: Connections, access: KeyAccess): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization;
    if (
      !header &&
      access === 'public_read' &&
      (await connectionOfPath(connections, req))?.publicRead === true
    ) {
      // `req.ip` is the socket's address, except on the tunnel-only listener, which trusts exactly one proxy hop
      // (the tunnel's X-Forwarded-For): there each real client keeps its own limit (app.ts).
      locals(res).anonymousSubject = `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
      return next();
    }
    if (!header) return next(new AppError('unauthorized', MISSING_KEY));
    const match = BEARER.exec(header);
    if (!match) return next(new AppError('unauthorized', 'Authorization header must be "Bearer <API_KEY>".'));
    const record = await keys.findByKey(match[1]!);
    if (!record) return next(new AppError('unauthorized', 'Unknown API key.'));
    if (record.revokedAt) return next(new AppError('unauthorized', 'This API key has been revoked.'));
    // A hint only, never failing the request (touch swallows a full disk): not awaited.
    void keys.touch(record.id);
    locals(res).apiKey = record;
    if (access === 'read_write' && record.scope !== 'read_write') return next(readOnlyKey(req.method));
    next();
  };
}

/** A read of a route that needs read_write (the delivery log) is not a write: say which it is. */
function readOnlyKey(method = 'POST'): AppError {
  const what = method === 'GET' || method === 'HEAD' ? 'this route needs' : 'writes need';
  return new AppError('forbidden', `This API key is read-only; ${what} a key with scope read_write.`);
}

export function apiKeyOf(res: Response): ApiKeyRecord {
  const key = locals(res).apiKey;
  if (!key) throw new AppError('unauthorized', 'Missing API key.');
  return key;
}

/** The key was made for these spreadsheets only (its allow-list), or for every one (an empty list). */
export function mayReach(key: ApiKeyRecord, spreadsheetId: string): boolean {
  return key.connections.length === 0 || key.connections.includes(spreadsheetId);
}

/**
 * The caller a route's guards admitted, and the check of a connection against it: an anonymous caller reaches
 * public-read connections only (401 otherwise, as for a missing key); a key, those on its allow-list (403).
 */
export function reachOf(res: Response): {
  key: ApiKeyRecord | null;
  reach(connection: ConnectionRecord): void;
} {
  const anonymous = locals(res).anonymousSubject !== undefined;
  const key = anonymous ? null : apiKeyOf(res);
  return {
    key,
    reach(connection) {
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
