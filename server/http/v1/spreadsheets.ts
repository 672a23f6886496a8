import type { Router } from 'express';
import { toPublicSheetId } from '../../connections/sheet-id.ts';
import { AppError } from '../../errors.ts';
import type { ReplicaEntry } from '../../replica/replica.ts';
import type { ConnectionRecord } from '../../store/connections.ts';
import { apiKeyOf, authorize, mayReach } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

/** How a client finds a connection's tabs and their stable `sheet_id`s. */
export function describeSpreadsheet(connection: ConnectionRecord, entry: ReplicaEntry) {
  return {
    spreadsheet_id: connection.spreadsheetId,
    user_key: connection.userKey,
    name: connection.name,
    source: connection.sourceKind,
    public_read: connection.publicRead,
    created_at: connection.createdAt,
    sheets: entry.snapshot.tabs.map((tab) => ({
      sheet_id: toPublicSheetId(connection.spreadsheetId, tab.sourceSheetId),
      name: tab.name,
      header: tab.header,
      row_count: tab.typed.length,
    })),
  };
}

export function mountSpreadsheetRoutes(router: Router, deps: AppDeps): void {
  router.get('/v1/spreadsheets', async (_req, res) => {
    const key = apiKeyOf(res);
    const reachable = deps.connections.list().filter((c) => mayReach(key, c));
    const data = await Promise.all(
      reachable.map(async (connection) => {
        try {
          return describeSpreadsheet(connection, await deps.replica.get(connection));
        } catch (err) {
          // One unreadable workbook (moved, corrupt) must not hide the others: list it without tabs.
          const message = err instanceof AppError ? err.message : 'Could not read this spreadsheet.';
          return { ...describeSpreadsheet(connection, emptyEntry()), sheets: [], error: message };
        }
      }),
    );
    res.json({ data });
  });

  router.get('/v1/spreadsheets/:id', async (req, res) => {
    const connection = deps.connections.getBySpreadsheetId(String(req.params.id));
    if (!connection) throw new AppError('spreadsheet_not_found', 'No spreadsheet with this id.');
    authorize(res, connection, 'read');
    res.json(describeSpreadsheet(connection, await deps.replica.get(connection)));
  });
}

function emptyEntry(): ReplicaEntry {
  return { snapshot: { title: '', version: '', tabs: [] }, byName: new Map(), bySourceSheetId: new Map() };
}
