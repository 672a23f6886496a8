/**
 * Applying a validated write plan (sources/plan.ts) to a Google tab.
 * - One plain append: `values.append` RAW with INSERT_ROWS, anchored on the first empty row below the data.
 *   An empty origin belongs to no table, so Google writes exactly there (the table trap of values.append,
 *   where a whole-sheet or header range lands after some other block, cannot misplace it).
 * - Anything else (updates, deletes, several appends, formulas, number formats, a new header): ONE
 *   `spreadsheets.batchUpdate` (updateCells / deleteDimension / appendDimension), which Google applies all or
 *   nothing, for one unit of write quota.
 * Sheets has no idempotency key: after a failure that may have landed, the append looks at the tab's tail and
 * the batch at Drive's version before sending again (retry.ts).
 */
import type { sheets_v4 } from '@googleapis/sheets';
import { columnLetter } from '../header.ts';
import type { WritePlan } from '../plan.ts';
import type { TabSnapshot, WriteOptions } from '../source.ts';
import { cellWrite, type DatePlace, fieldsFor, type GoogleCellWrite } from './cell-data.ts';
import type { GoogleClients } from './client.ts';
import type { SheetMeta } from './read.ts';
import { type RetryPolicy, withRetry } from './retry.ts';

export interface WriteTarget {
  clients: GoogleClients;
  spreadsheetId: string;
  sheet: SheetMeta;
  tab: TabSnapshot;
  retry: RetryPolicy;
  /** Drive's version before the write, and a way to ask for the current one. */
  versionBefore: string;
  checkVersion: () => Promise<string>;
}

/** A1 sheet name, always quoted ('It''s'), which is valid for every title. */
export const quotedTitle = (title: string): string => `'${title.replaceAll("'", "''")}'`;

/** Where data row `index` (0-based; past the end for an append) column `column` lands, for dates. */
function datePlace(target: Pick<WriteTarget, 'sheet' | 'tab'>, index: number, column: number): DatePlace {
  const { sheet, tab } = target;
  return {
    cell: index < tab.typed.length ? sheet.dates.get(tab.headerRow + index, column) : undefined,
    column: () => sheet.dates.ofColumn(tab, column, index),
  };
}

/** A row of cell writes as wide as its last written column; unset columns stay untouched (null). */
function rowOf(
  target: Pick<WriteTarget, 'sheet' | 'tab'>,
  cells: WritePlan['appends'][number],
  options: WriteOptions,
): (GoogleCellWrite | null)[] {
  const width = cells.reduce((max, c) => Math.max(max, c.column + 1), 0);
  const row: (GoogleCellWrite | null)[] = new Array(width).fill(null);
  const end = target.tab.typed.length;
  for (const cell of cells)
    row[cell.column] = cellWrite(cell.value, options, datePlace(target, end, cell.column));
  return row;
}

/** A tab's grid: Google counts every cell of it, empty or not, against the spreadsheet's cells. */
export interface GridSize {
  rows: number;
  columns: number;
}

/** How a plan goes to Google, and the tab's grid afterwards. */
export type Sending =
  | { via: 'append'; row: (GoogleCellWrite | null)[]; grid: GridSize }
  | { via: 'batch'; grid: GridSize };

const lastDataRow = (tab: TabSnapshot): number => tab.headerRow + tab.typed.length;

/** Where a batch puts its first appended row (0-based), after its deletes. */
const firstAppendIndex = (tab: TabSnapshot, plan: WritePlan): number =>
  (plan.newHeader ? 1 : lastDataRow(tab)) - plan.deletes.length;

/** A batch grows the grid only by the rows and columns it writes into and the grid lacks. */
function batchGrid({ sheet, tab }: Pick<WriteTarget, 'sheet' | 'tab'>, plan: WritePlan): GridSize {
  let rows = sheet.rowCount - plan.deletes.length;
  if (plan.appends.length > 0) rows = Math.max(rows, firstAppendIndex(tab, plan) + plan.appends.length);
  return { rows, columns: Math.max(sheet.columnCount, plan.header.length) };
}

/**
 * The ways the plan can be sent, the preferred first: one plain append goes as `values.append`, which inserts
 * its row (the grid grows by one row even where empty rows are left); anything else, or an append the inserted
 * row would not leave room for, as a batch.
 */
export function sendings(
  target: Pick<WriteTarget, 'sheet' | 'tab'>,
  plan: WritePlan,
  options: WriteOptions,
): Sending[] {
  const batch: Sending = { via: 'batch', grid: batchGrid(target, plan) };
  const onlyAppend =
    plan.appends.length === 1 && !plan.newHeader && plan.updates.length === 0 && plan.deletes.length === 0;
  if (!onlyAppend) return [batch];
  const row = rowOf(target, plan.appends[0] ?? [], options);
  if (!row.every((cell) => cell === null || cell.raw !== undefined)) return [batch];
  const { rowCount, columnCount } = target.sheet;
  return [
    { via: 'append', row, grid: { rows: rowCount + 1, columns: Math.max(columnCount, row.length) } },
    batch,
  ];
}

export async function applyPlan(
  target: WriteTarget,
  plan: WritePlan,
  options: WriteOptions,
  sending: Sending = sendings(target, plan, options)[0] as Sending,
): Promise<void> {
  if (sending.via === 'append') return appendRow(target, sending.row);
  return batchUpdate(target, plan, options);
}

async function appendRow(target: WriteTarget, row: (GoogleCellWrite | null)[]): Promise<void> {
  const { clients, spreadsheetId, sheet, tab } = target;
  const origin = lastDataRow(tab) + 1;
  const values = [row.map((cell) => (cell ? (cell.raw ?? null) : null))];
  await withRetry(
    async () => {
      await clients.sheets.spreadsheets.values.append({
        spreadsheetId,
        range: `${quotedTitle(sheet.title)}!A${origin}`,
        valueInputOption: 'RAW',
        insertDataOption: 'INSERT_ROWS',
        requestBody: { majorDimension: 'ROWS', values },
      });
      return true as const;
    },
    target.retry,
    { landed: () => tailHolds(target, origin, values[0] ?? []) },
  );
}

const sameCell = (sent: unknown, got: unknown): boolean =>
  sent === null ? got === undefined || got === null || got === '' : sent === got;

/** Whether a row equal to `sent` is anywhere from `origin` down: the append landed (maybe below another's). */
async function tailHolds(target: WriteTarget, origin: number, sent: unknown[]): Promise<true | undefined> {
  const width = Math.max(sent.length, 1);
  const { data } = await target.clients.sheets.spreadsheets.values.get({
    spreadsheetId: target.spreadsheetId,
    range: `${quotedTitle(target.sheet.title)}!A${origin}:${columnLetter(width)}`,
    valueRenderOption: 'UNFORMATTED_VALUE',
    dateTimeRenderOption: 'SERIAL_NUMBER',
  });
  const rows = (data.values ?? []) as unknown[][];
  return rows.some((got) => sent.every((value, i) => sameCell(value, got[i]))) ? true : undefined;
}

function updateCellsAt(
  sheetId: number,
  rowIndex: number,
  columnIndex: number,
  rows: (GoogleCellWrite | null)[][],
): sheets_v4.Schema$Request {
  const writes = rows.flat().filter((w): w is GoogleCellWrite => w !== null);
  return {
    updateCells: {
      start: { sheetId, rowIndex, columnIndex },
      rows: rows.map((row) => ({ values: row.map((w) => w?.data ?? {}) })),
      fields: fieldsFor(writes),
    },
  };
}

/** The plan as Sheets requests, in an order where each request's indexes are right after the previous ones. */
export function planRequests(
  target: Pick<WriteTarget, 'sheet' | 'tab'>,
  plan: WritePlan,
  options: WriteOptions,
) {
  const { sheet, tab } = target;
  const sheetId = sheet.sheetId;
  const requests: sheets_v4.Schema$Request[] = [];
  if (plan.header.length > sheet.columnCount) {
    requests.push({
      appendDimension: { sheetId, dimension: 'COLUMNS', length: plan.header.length - sheet.columnCount },
    });
  }
  if (plan.newHeader) {
    const header = plan.header.map((name) => cellWrite(name, { allowFormulas: false, userEntered: false }));
    requests.push(updateCellsAt(sheetId, 0, 0, [header]));
  }
  // Updates before deletes: row numbers are those of the tab before the batch. Each cell is its own request so
  // the cells between the named ones are left alone.
  for (const update of plan.updates) {
    for (const cell of update.cells) {
      requests.push(
        updateCellsAt(sheetId, tab.headerRow + update.row - 1, cell.column, [
          [cellWrite(cell.value, options, datePlace(target, update.row - 1, cell.column))],
        ]),
      );
    }
  }
  for (const row of plan.deletes) {
    const index = tab.headerRow + row - 1;
    requests.push({
      deleteDimension: { range: { sheetId, dimension: 'ROWS', startIndex: index, endIndex: index + 1 } },
    });
  }
  if (plan.appends.length > 0) {
    const firstIndex = firstAppendIndex(tab, plan);
    const rowCount = sheet.rowCount - plan.deletes.length;
    const missing = firstIndex + plan.appends.length - rowCount;
    if (missing > 0) requests.push({ appendDimension: { sheetId, dimension: 'ROWS', length: missing } });
    requests.push(
      updateCellsAt(
        sheetId,
        firstIndex,
        0,
        plan.appends.map((cells) => rowOf(target, cells, options)),
      ),
    );
  }
  return requests;
}

async function batchUpdate(target: WriteTarget, plan: WritePlan, options: WriteOptions): Promise<void> {
  const requests = planRequests(target, plan, options);
  if (requests.length === 0) return;
  await withRetry(
    async () => {
      await target.clients.sheets.spreadsheets.batchUpdate({
        spreadsheetId: target.spreadsheetId,
        requestBody: { requests },
      });
      return true as const;
    },
    target.retry,
    // A batch has no tail to look at; if the file changed since just before it, it is taken as landed.
    { landed: async () => ((await target.checkVersion()) !== target.versionBefore ? true : undefined) },
  );
}
