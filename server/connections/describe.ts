/** The JSON shape of a connection with its tabs: one shape for the API (`/v1/spreadsheets`, `/admin`) and the CLI. */

import type { ConnectionRecord } from '../repositories/connections.ts';
import { isReadOnly } from '../sources/index.ts';
import type { SpreadsheetSnapshot } from '../sources/source.ts';
import { rowCountOf } from '../sources/tab-rows.ts';
import { toPublicSheetId } from './sheet-id.ts';

/** A connection without its tabs (what is known without reading the spreadsheet). */
export function connectionJson(connection: ConnectionRecord) {
  return {
    spreadsheet_id: connection.spreadsheetId,
    user_key: connection.userKey,
    name: connection.name,
    source: connection.sourceKind,
    public_read: connection.publicRead,
    created_at: connection.createdAt,
  };
}

/** What the dashboard (`/admin`) shows of a connection: where it lives, and whether its owner made it read-only. */
export function adminConnectionJson(connection: ConnectionRecord) {
  return { ...connectionJson(connection), location: connection.location, read_only: isReadOnly(connection) };
}

/** A connection with its tabs, each with its stable `sheet_id`. */
export function describeSpreadsheet(connection: ConnectionRecord, snapshot: SpreadsheetSnapshot) {
  return {
    ...connectionJson(connection),
    sheets: snapshot.tabs.map((tab) => ({
      sheet_id: toPublicSheetId(connection.spreadsheetId, tab.sourceSheetId),
      name: tab.name,
      header: tab.header,
      row_count: rowCountOf(tab),
    })),
  };
}

export type SpreadsheetJson = ReturnType<typeof describeSpreadsheet>;
