/**
 * The connection a route's path names, the one rule for all of them: by `:userKey` (the `/api` routes), by
 * `:sheetId` (a public sheet_id, whose first half is the spreadsheet_id), else by `:id` (a spreadsheet_id).
 */

import { parsePublicSheetId } from '../../connections/sheet-id.ts';
import { AppError } from '../../errors.ts';
import type { ConnectionRecord, Connections } from '../../repositories/connections.ts';
import type { RouteRequest } from '../route-table.ts';

type Lookup = Pick<Connections, 'getByUserKey' | 'getBySpreadsheetId'>;

/** The named connection, or null when there is none (or the sheet_id is malformed). */
export async function connectionOfPath(
  connections: Lookup,
  req: RouteRequest,
): Promise<ConnectionRecord | null> {
  const { userKey, sheetId, id } = req.params as { userKey?: string; sheetId?: string; id?: string };
  if (userKey !== undefined) return await connections.getByUserKey(userKey);
  if (sheetId !== undefined) {
    const parsed = parsePublicSheetId(sheetId);
    return parsed ? await connections.getBySpreadsheetId(parsed.spreadsheetId) : null;
  }
  return id === undefined ? null : await connections.getBySpreadsheetId(id);
}

/** The `connection` resource: 404 `spreadsheet_not_found` when the path names none. */
export async function resolveConnection(connections: Lookup, req: RouteRequest): Promise<ConnectionRecord> {
  const connection = await connectionOfPath(connections, req);
  if (connection) return connection;
  const { userKey, id } = req.params as { userKey?: string; id?: string };
  throw new AppError(
    'spreadsheet_not_found',
    userKey !== undefined
      ? 'No spreadsheet is connected under this userKey.'
      : `No spreadsheet with id "${id}".`,
  );
}
