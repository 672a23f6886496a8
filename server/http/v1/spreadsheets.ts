import { describeSpreadsheet } from '../../connections/describe.ts';
import { AppError } from '../../errors.ts';
import type { ReplicaEntry } from '../../replica/replica.ts';
import type { SpreadsheetSnapshot } from '../../sources/source.ts';
import { apiKeyOf, authorize, mayReach } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import type { RouteTable } from '../route-table.ts';

export function mountSpreadsheetRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.get('/v1/spreadsheets', 'read', async (_req, res) => {
    const key = apiKeyOf(res);
    const reachable = (await deps.connections.list()).filter((c) => mayReach(key, c));
    const data = await Promise.all(
      reachable.map(async (connection) => {
        const read = await withinWait(deps.replica.get(connection));
        if ('entry' in read) return describeSpreadsheet(connection, read.entry.snapshot);
        // One unreadable (moved, corrupt) or slow (a huge file being parsed) workbook must not hide or hold
        // up the others: list it without tabs, saying why.
        const message =
          read.error === SLOW
            ? 'This spreadsheet is still being read; ask again shortly.'
            : read.error instanceof AppError
              ? read.error.message
              : 'Could not read this spreadsheet.';
        return { ...describeSpreadsheet(connection, NO_TABS), error: message };
      }),
    );
    res.json({ data });
  });

  routes.get('/v1/spreadsheets/:id', 'read', async (req, res) => {
    const connection = await deps.connections.getBySpreadsheetId(String(req.params.id));
    if (!connection) throw new AppError('spreadsheet_not_found', 'No spreadsheet with this id.');
    authorize(res, connection, 'read');
    res.json(describeSpreadsheet(connection, (await deps.replica.get(connection)).snapshot));
  });
}

/** How long the list waits for any one spreadsheet's first read (a parse) before listing it as pending. */
const LIST_WAIT_MS = 2000;
const SLOW = Symbol('slow');

/** The entry, or why there is none: the read failed, or took longer than the list waits. */
async function withinWait(
  read: Promise<ReplicaEntry>,
): Promise<{ entry: ReplicaEntry } | { error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<{ error: unknown }>((resolve) => {
    timer = setTimeout(() => resolve({ error: SLOW }), LIST_WAIT_MS);
  });
  try {
    return await Promise.race([
      read.then(
        (entry) => ({ entry }),
        (error: unknown) => ({ error }),
      ),
      slow,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const NO_TABS: SpreadsheetSnapshot = { title: '', version: '', tabs: [] };
