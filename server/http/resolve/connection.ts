/**
 * The `connection` a route names: by `:userKey` (the `/api` routes), else by `:id`, a spreadsheet_id (`/v1`).
 * 404 `spreadsheet_not_found` when there is none.
 */
import type { Request } from 'express';
import { AppError } from '../../errors.ts';
import type { ConnectionRecord } from '../../store/connections.ts';
import type { AppDeps } from '../deps.ts';

export async function resolveConnection(deps: AppDeps, req: Request): Promise<ConnectionRecord> {
  const { userKey, id } = req.params as { userKey?: string; id?: string };
  if (userKey !== undefined) {
    const connection = await deps.connections.getByUserKey(userKey);
    if (connection) return connection;
    throw new AppError('spreadsheet_not_found', 'No spreadsheet is connected under this userKey.');
  }
  const connection = await deps.connections.getBySpreadsheetId(String(id));
  if (connection) return connection;
  throw new AppError('spreadsheet_not_found', `No spreadsheet with id "${String(id)}".`);
}
