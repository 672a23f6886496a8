import type { RequestHandler, Response } from 'express';
import { AppError } from '../errors.ts';
import type { ApiKeyRecord, ApiKeyStore } from '../store/api-keys.ts';
import type { ConnectionRecord } from '../store/connections.ts';
import { locals } from './locals.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Every `/api` and `/v1` request needs a live API key; the userKey in a path is never enough on its own. */
export function requireApiKey(keys: ApiKeyStore): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization;
    if (!header)
      return next(new AppError('unauthorized', 'Missing API key: send "Authorization: Bearer <API_KEY>".'));
    const match = BEARER.exec(header);
    if (!match) return next(new AppError('unauthorized', 'Authorization header must be "Bearer <API_KEY>".'));
    const record = keys.findByKey(match[1]!);
    if (!record) return next(new AppError('unauthorized', 'Unknown API key.'));
    if (record.revokedAt) return next(new AppError('unauthorized', 'This API key has been revoked.'));
    keys.touch(record.id);
    locals(res).apiKey = record;
    next();
  };
}

export function apiKeyOf(res: Response): ApiKeyRecord {
  const key = locals(res).apiKey;
  if (!key) throw new AppError('unauthorized', 'Missing API key.');
  return key;
}

export function mayReach(key: ApiKeyRecord, connection: ConnectionRecord): boolean {
  return key.connections.length === 0 || key.connections.includes(connection.spreadsheetId);
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
  if (access === 'write' && key.scope !== 'read_write') {
    throw new AppError('forbidden', 'This API key is read-only; writes need a key with scope read_write.');
  }
  return key;
}
