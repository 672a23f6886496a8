import type { Request, RequestHandler, Response } from 'express';
import { parsePublicSheetId } from '../connections/sheet-id.ts';
import { AppError } from '../errors.ts';
import type { ConnectionRecord, Connections } from '../repositories/connections.ts';
import type { ApiKeyRecord, Keys } from '../repositories/keys.ts';
import { locals } from './locals.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Every `/api` and `/v1` route needs a live API key; the userKey in a path is never enough on its own. The one
 * exception, for routes declared `public_read`: a GET of the rows of a connection its owner marked "public
 * read" may come without a key; it is then limited per client address. `write` routes need the read_write scope.
 */
export function requireApiKey(
  keys: Keys,
  connections: Connections,
  access: 'public_read' | 'read' | 'write',
): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers.authorization;
    if (
      !header &&
      access === 'public_read' &&
      (await connectionOfRoute(req, connections))?.publicRead === true
    ) {
      // `req.ip` is the socket's address, except on the tunnel-only listener, which trusts exactly one proxy hop
      // (the tunnel's X-Forwarded-For): there each real client keeps its own limit (app.ts).
      locals(res).anonymousSubject = `ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`;
      return next();
    }
    if (!header) {
      return next(new AppError('unauthorized', 'Missing API key: send "Authorization: Bearer <API_KEY>".'));
    }
    const match = BEARER.exec(header);
    if (!match) return next(new AppError('unauthorized', 'Authorization header must be "Bearer <API_KEY>".'));
    const record = await keys.findByKey(match[1]!);
    if (!record) return next(new AppError('unauthorized', 'Unknown API key.'));
    if (record.revokedAt) return next(new AppError('unauthorized', 'This API key has been revoked.'));
    // A hint only, never failing the request (touch swallows a full disk): not awaited.
    void keys.touch(record.id);
    locals(res).apiKey = record;
    if (access === 'write' && record.scope !== 'read_write') return next(readOnlyKey(req.method));
    next();
  };
}

/** The connection a public-read route names, by its `userKey` or `sheetId` parameter. */
function connectionOfRoute(req: Request, connections: Connections): Promise<ConnectionRecord | null> {
  const { userKey, sheetId } = req.params as { userKey?: string; sheetId?: string };
  if (userKey !== undefined) return connections.getByUserKey(userKey);
  const parsed = sheetId === undefined ? null : parsePublicSheetId(sheetId);
  return parsed ? connections.getBySpreadsheetId(parsed.spreadsheetId) : Promise.resolve(null);
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

export function mayReach(key: ApiKeyRecord, connection: ConnectionRecord): boolean {
  return key.connections.length === 0 || key.connections.includes(connection.spreadsheetId);
}

/** Reads: anonymous callers only on public-read connections; keys as `authorize` says. */
export function authorizeRead(res: Response, connection: ConnectionRecord): void {
  if (locals(res).anonymousSubject !== undefined) {
    if (connection.publicRead) return;
    throw new AppError('unauthorized', 'Missing API key: send "Authorization: Bearer <API_KEY>".');
  }
  authorize(res, connection, 'read');
}

/** 403 unless the key may reach this connection (and, for writes, has the read_write scope). */
export function authorize(
  res: Response,
  connection: ConnectionRecord,
  access: 'read' | 'write',
): ApiKeyRecord {
  const key = apiKeyOf(res);
  if (!mayReach(key, connection)) {
    throw new AppError('forbidden', 'This API key is not allowed to reach this spreadsheet.');
  }
  if (access === 'write' && key.scope !== 'read_write') throw readOnlyKey();
  return key;
}
