import { describeSpreadsheet } from '../../connections/describe.ts';
import { AppError } from '../../errors.ts';
import type { SpreadsheetSnapshot } from '../../sources/source.ts';
import { mayReach } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import type { RouteTable } from '../route-table.ts';

export function mountSpreadsheetRoutes(
  routes: RouteTable,
  deps: Pick<AppDeps, 'connections' | 'spreadsheets'>,
): void {
  routes.get('/v1/spreadsheets', { access: 'read', resource: 'none' }, async (_req, res, { key }) => {
    const reachable = (await deps.connections.list()).filter((c) => mayReach(key, c.spreadsheetId));
    const data = await Promise.all(
      reachable.map(async (connection) => {
        const read = await withinWait(deps.spreadsheets.of(connection).read());
        if ('snapshot' in read) return describeSpreadsheet(connection, read.snapshot);
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

  routes.get('/v1/spreadsheets/:id', { access: 'read', resource: 'connection' }, async (_req, res, ctx) => {
    res.json(describeSpreadsheet(ctx.connection, await ctx.spreadsheet.read()));
  });
}

/** How long the list waits for any one spreadsheet's first read (a parse) before listing it as pending. */
const LIST_WAIT_MS = 2000;
const SLOW = Symbol('slow');

/** The snapshot, or why there is none: the read failed, or took longer than the list waits. */
async function withinWait(
  read: Promise<SpreadsheetSnapshot>,
): Promise<{ snapshot: SpreadsheetSnapshot } | { error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<{ error: unknown }>((resolve) => {
    timer = setTimeout(() => resolve({ error: SLOW }), LIST_WAIT_MS);
  });
  try {
    return await Promise.race([
      read.then(
        (snapshot) => ({ snapshot }),
        (error: unknown) => ({ error }),
      ),
      slow,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const NO_TABS: SpreadsheetSnapshot = { title: '', version: '', tabs: [] };
