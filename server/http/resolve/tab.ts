/**
 * The `tab` a route names, in two steps so the key is checked against the spreadsheet before its tabs are read:
 * `tabAddress` finds the connection, `addressedTab` the tab through its Spreadsheet (find-tab.ts, the one rule).
 * - `/api/spreadsheets/:userKey/:sheetName`: the connection by userKey, the tab by name; a miss is the
 *   resolver's own 404 (the tabs there are, or those differing only in case);
 * - `/v1/sheets/:sheetId`: a public sheet_id (`<spreadsheet_id>~<source sheet id>`); one 404 `sheet_not_found`
 *   naming it for every way it can miss (malformed, no such spreadsheet, no such tab), since the caller knows
 *   only the id.
 * Which tab a reference finds is find-tab.ts's rule alone; these only word the 404.
 */

import { parsePublicSheetId } from '../../connections/sheet-id.ts';
import { AppError, isAppError } from '../../errors.ts';
import type { ConnectionRecord } from '../../repositories/connections.ts';
import type { TabSnapshot } from '../../sources/source.ts';
import type { TabRef } from '../../spreadsheets/find-tab.ts';
import type { Spreadsheet } from '../../spreadsheets/spreadsheet.ts';
import type { AppDeps } from '../deps.ts';
import type { RouteRequest } from '../route-table.ts';
import { connectionOfPath, resolveConnection } from './connection.ts';

export interface TabAddress {
  connection: ConnectionRecord;
  ref: TabRef;
  /** The error for a sheet_id that finds no tab (a name's miss is worded by the resolver). */
  missing?: () => AppError;
}

export async function tabAddress(deps: Pick<AppDeps, 'connections'>, req: RouteRequest): Promise<TabAddress> {
  const { sheetId } = req.params as { sheetId?: string };
  if (sheetId === undefined) {
    const name = String(req.params.sheetName);
    return { connection: await resolveConnection(deps.connections, req), ref: { name } };
  }
  const missing = () => new AppError('sheet_not_found', `No tab with sheet_id "${sheetId}".`);
  const connection = await connectionOfPath(deps.connections, req);
  const parsed = parsePublicSheetId(sheetId);
  if (!parsed || !connection) throw missing();
  return { connection, ref: { sourceSheetId: parsed.sourceSheetId }, missing };
}

export async function addressedTab(spreadsheet: Spreadsheet, address: TabAddress): Promise<TabSnapshot> {
  try {
    return await spreadsheet.tab(address.ref);
  } catch (e) {
    // A name's miss says it in the resolver's words (the tabs there are, or the ones differing only in case);
    // a sheet_id's says the id, the one thing its caller knows.
    if (isAppError(e) && e.code === 'sheet_not_found' && address.missing) throw address.missing();
    throw e;
  }
}
