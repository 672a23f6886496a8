/**
 * Tables ("Format as Table") following the rows SheetPort appends and deletes, the way Excel moves them:
 * rows appended right below a table join it, a deleted row inside a table shrinks it, one above it moves
 * the whole table up, one below leaves it alone.
 *
 * How ExcelJS (4.4) holds a loaded table: `ws.tables[name].table` is a plain model whose `tableRef` is the
 * table part's `ref` (header, data and totals rows), `autoFilterRef` its `<autoFilter ref>` (undefined when
 * the part has none), plus `headerRow`/`totalsRow` flags and `columns`. On save it writes `tableRef` and
 * `autoFilterRef` back as they are; nothing in ExcelJS moves them when cells move (the `ref`/`rows`/
 * `commit()` machinery of `addTable` is for tables built in memory and rewrites cells, so it is not used).
 * The models survive `ws.model = ...` (xlsx-delete.ts) as the same objects, so they are edited in place.
 */
import type ExcelJS from 'exceljs';
import { AppError } from '../../../../server/errors.ts';
import { columnLetter } from '../../../../server/sources/header.ts';
import { shiftRange } from '../../../../server/sources/workbook/formulas/formula-text.ts';
import type { RowMap } from '../../../../server/sources/workbook/row-map.ts';

export interface TableColumnModel {
  name: string;
  filterButton?: boolean;
  [key: string]: unknown;
}

export interface TableModel {
  name: string;
  tableRef?: string;
  autoFilterRef?: string;
  headerRow?: boolean;
  totalsRow?: boolean;
  columns: TableColumnModel[];
  [key: string]: unknown;
}

/** The table models of a worksheet (ExcelJS's typings do not describe them). */
export function tablesOf(ws: ExcelJS.Worksheet): TableModel[] {
  const holders = (ws as unknown as { tables?: Record<string, { table?: TableModel }> }).tables ?? {};
  return Object.values(holders).flatMap((holder) => (holder.table ? [holder.table] : []));
}

/** A rectangle of cells, 1-based and inclusive. */
export interface Area {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const AREA = /^\$?([A-Za-z]{1,3})\$?(\d+):\$?([A-Za-z]{1,3})\$?(\d+)$/;

function columnNumber(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

/** `A1:C4` -> its area; null for anything else (a table ref always has two corners). */
export function parseArea(ref: string | undefined): Area | null {
  const m = ref === undefined ? null : AREA.exec(ref.trim());
  if (!m) return null;
  const [, c1, r1, c2, r2] = m as unknown as [string, string, string, string, string];
  const [left, right] = [columnNumber(c1), columnNumber(c2)].sort((a, b) => a - b) as [number, number];
  const [top, bottom] = [Number(r1), Number(r2)].sort((a, b) => a - b) as [number, number];
  return { left, top, right, bottom };
}

export function formatArea(area: Area): string {
  return `${columnLetter(area.left)}${area.top}:${columnLetter(area.right)}${area.bottom}`;
}

/**
 * New rows were written at sheet rows `after + 1 .. last`, filling the 1-based `columns`. A table grows
 * down to `last` when, as in Excel typing right under a table, the new rows continue it: its range ends at
 * `after` (or already reaches into the new rows, as an empty row kept by {@link splitTableDeletes} does,
 * but not down to `last`), and its columns cover every column the new rows fill. A table beside the data,
 * or one the new rows only partly fall into, stays as it is; so does a table that does not end there.
 */
export function growTablesOverAppends(
  ws: ExcelJS.Worksheet,
  after: number,
  last: number,
  columns: ReadonlySet<number>,
): void {
  if (last <= after || columns.size === 0) return;
  for (const table of tablesOf(ws)) {
    // A table with a totals row ends with it, so the new rows land below the totals row, outside the
    // table, as typing under the totals row does in Excel. Growing the table would put the totals row in
    // the middle of the data (it is always the table's last row), and moving it down would mean rewriting
    // cells the write did not name; the table is left as it is.
    if (table.totalsRow) continue;
    const area = parseArea(table.tableRef);
    if (!area || area.top > after || area.bottom < after || area.bottom >= last) continue;
    if ([...columns].some((column) => column < area.left || column > area.right)) continue;
    table.tableRef = formatArea({ ...area, bottom: last });
    const filter = parseArea(table.autoFilterRef);
    if (filter) table.autoFilterRef = formatArea({ ...filter, bottom: last });
  }
}

export interface TableDeletes {
  /** Sheet rows to delete (everything below moves up). */
  remove: number[];
  /** Sheet rows (numbered as before the delete) to keep, emptied, instead of deleting. */
  clear: number[];
}

/**
 * Which of the sheet rows about to be deleted really go. Excel requires every table to keep at least one
 * data row under its header (a table part with no data row is a file Excel has to repair), so when the
 * delete would take all of a table's data rows the first of them stays, emptied: the table becomes its
 * header plus one empty row, as Excel leaves it when you delete all of a table's rows. When the table ends
 * the tab that empty row is trailing and the tab simply has no rows left; a table with data below it
 * leaves an empty row there instead.
 *
 * Deleting a table's header row (possible for a table that starts below the tab's header) would leave a
 * table whose header is a data row, or no table at all and broken references to it, so it is refused
 * before anything changes. `apiRow` turns a sheet row into the row number the client used, for the message.
 */
export function splitTableDeletes(
  ws: ExcelJS.Worksheet,
  sheetRows: readonly number[],
  apiRow: (sheetRow: number) => number,
): TableDeletes {
  const deleted = new Set(sheetRows);
  const keep = new Set<number>();
  if (deleted.size === 0) return { remove: [], clear: [] };
  for (const table of tablesOf(ws)) {
    const area = parseArea(table.tableRef);
    if (!area) continue;
    if (table.headerRow && deleted.has(area.top)) {
      const row = apiRow(area.top);
      throw new AppError(
        'conflict',
        `Row ${row} is the header row of the table "${table.name}" and cannot be deleted while the table ` +
          'exists; convert the table to a range in a spreadsheet program first.',
        { row, table: table.name },
      );
    }
    const firstData = area.top + (table.headerRow ? 1 : 0);
    const lastData = area.bottom - (table.totalsRow ? 1 : 0);
    if (lastData < firstData) continue; // not a valid table; leave its rows to the delete
    let allGo = true;
    for (let row = firstData; row <= lastData && allGo; row++) allGo = deleted.has(row);
    if (allGo) keep.add(firstData);
  }
  return {
    remove: sheetRows.filter((row) => !keep.has(row)),
    clear: [...keep],
  };
}

/**
 * After the rows of `rows` were deleted from `ws`: each table's range moves and shrinks like the cells it
 * covers (a deleted row inside it shrinks it, rows above it move it up, rows below it change nothing), and
 * its auto filter with it. Deleting a table's totals row turns the totals row off, as unticking "Total Row"
 * in Excel does (the columns keep their totals functions for when it is turned back on).
 */
export function shiftTables(ws: ExcelJS.Worksheet, rows: RowMap): void {
  for (const table of tablesOf(ws)) {
    const area = parseArea(table.tableRef);
    if (!area) continue;
    const span = rows.span(area.top, area.bottom);
    if (!span) continue; // cannot happen: splitTableDeletes keeps the header or a data row of every table
    if (table.totalsRow && rows.row(area.bottom) === null) table.totalsRow = false;
    table.tableRef = formatArea({ ...area, top: span[0], bottom: span[1] });
    if (table.autoFilterRef) table.autoFilterRef = shiftRange(table.autoFilterRef, rows) ?? table.tableRef;
  }
}
