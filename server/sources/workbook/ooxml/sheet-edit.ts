/**
 * A validated WritePlan applied to one worksheet part, in the order today's engine uses: updates in place,
 * deletes (bottom-up, everything below moves up), a header for an empty tab, appends after the last data
 * row with the style ids of that row, and tables grown over appended rows as Excel grows them.
 */
import { AppError } from '../../../errors.ts';
import { columnLetter } from '../../header.ts';
import { interpretInput, type ParsedInput, parseIsoDateTime } from '../../input.ts';
import type { CellWrite, WritePlan } from '../../plan.ts';
import { rowsPastLimit } from '../../sheet-limits.ts';
import type { WriteOptions } from '../../source.ts';
import type { CellTab } from '../cell-tab.ts';
import { columnDateFormat } from '../date-column.ts';
import { EXCEL_MAX_ROWS } from '../excel-grid.ts';
import { RowMap } from '../row-map.ts';
import { isDateFormat } from '../values.ts';
import { parseArea } from './cell-area.ts';
import { styleOf, writeCellXml } from './cell-write.ts';
import { mergeCover, mergeRefsIn } from './merged-cells.ts';
import { deleteSheetRows, unshareFormulas } from './row-delete.ts';
import { cellAt, cellRef, parseRow, putCell, rowToXml } from './row-xml.ts';
import type { SheetEdit } from './sheet-edit-target.ts';
import type { SheetXml } from './sheet-xml.ts';
import { setTableArea, type TablePart } from './table-parts.ts';
import { getAttr, setAttr } from './xml-text.ts';

export interface EditResult {
  changed: boolean;
  deleted: boolean;
  /** The write wrote a formula. */
  formulas: boolean;
  /** Which sheet rows the write rewrote, for reading the tab's new version without reading it all. */
  rows: SheetRowChanges;
}

/** Sheet rows a write touched. Numbers before the write, except where said. */
export interface SheetRowChanges {
  /** Rows updated in place (before the deletes). */
  updated: number[];
  /** Rows deleted (everything below moved up). */
  deleted: number[];
  /** Rows emptied and kept for a table (numbered after the deletes). */
  cleared: number[];
  /** The header written in row 1 of an empty tab. */
  newHeader: boolean;
  /** The header row's formulas have new results (their columns may have new names). */
  header?: boolean;
  /** Rows appended (numbered after the deletes). */
  appended: number[];
}

/** The date format of a column near a sheet row (1-based column), when its cells are dates. */
type DateColumns = (column: number, sheetRow: number) => string | undefined;

/**
 * ISO 8601 text written into a cell formatted as a date, or into a column of dates, is a date: the value a
 * date cell reads as, written back changed, stays a date (with the cell's format, else the column's).
 */
function asDateWhereDates(
  parsed: ParsedInput,
  cellFormat: string | undefined,
  columnFormat: () => string | undefined,
): ParsedInput {
  if (parsed.kind !== 'text') return parsed;
  const date = parseIsoDateTime(parsed.value);
  if (!date) return parsed;
  if (isDateFormat(cellFormat)) return { kind: 'date', ...date };
  const numFmt = columnFormat();
  return numFmt === undefined ? parsed : { kind: 'date', ...date, numFmt };
}

/** Writes `cells` into sheet row `number`; `template` gives style ids for columns the cells do not name. */
function writeRow(
  edit: SheetEdit,
  number: number,
  cells: readonly CellWrite[],
  options: WriteOptions,
  template?: ReadonlyMap<number, number>,
  dates?: DateColumns,
): boolean {
  const { sheet } = edit;
  const slot = sheet.ensureRow(number);
  const row = parseRow(slot.xml, sheet.prefix);
  let formula = false;
  if (template) {
    for (const [column, style] of template) {
      if (!cellAt(row, column))
        putCell(row, column, `<${sheet.prefix}c r="${cellRef(column, number)}" s="${style}"/>`);
    }
  }
  const covered = mergeCover(mergeRefsIn(sheet.tail));
  for (const { column, value, field, index } of cells) {
    // A merged non-anchor cell cannot hold a value: writing to it is a no-op, as typing into it is in Excel.
    if (covered(number, column + 1)) continue;
    const existing = cellAt(row, column + 1);
    if (existing && isSharedFormulaMaster(existing.xml)) {
      // Overwriting the master would orphan the cells that borrow its text: give each its own formula.
      unshareFormulas(sheet);
      return writeRow(edit, number, cells, options, template, dates);
    }
    const style = styleOf(existing?.xml);
    let parsed = interpretInput(value, options);
    if (dates) {
      parsed = asDateWhereDates(parsed, edit.styles.numFmt(style), () => dates(column + 1, number));
    }
    if (parsed.kind === 'formula') formula = true;
    const target = {
      ref: cellRef(column + 1, number),
      style,
      prefix: sheet.prefix,
      date1904: edit.date1904,
      field,
      index,
    };
    putCell(row, column + 1, writeCellXml(parsed, target, edit.styles));
  }
  slot.xml = rowToXml(row, sheet.prefix);
  sheet.changed = true;
  return formula;
}

function isSharedFormulaMaster(cellXml: string): boolean {
  const f = /<(?:[\w.-]+:)?f\b[^>]*>/.exec(cellXml)?.[0];
  return f !== undefined && getAttr(f, 't') === 'shared' && getAttr(f, 'ref') !== undefined;
}

/**
 * Where a write's appended rows go, in sheet rows after its deletes (`rowsLeft` data rows stay, `kept` are table
 * rows the deletes emptied): after `last`, filling a kept row first, each styled like `styleRow` (none when the
 * header would be it). The date-cell check before the write (date-targets.ts) asks the same.
 */
export function appendPlace(
  headerRow: number,
  rowsLeft: number,
  kept: ReadonlySet<number>,
): { last: number; styleRow: number | undefined } {
  let last = headerRow + rowsLeft;
  while (last > headerRow && kept.has(last)) last--;
  const styleRow = kept.has(last + 1) ? last + 1 : last;
  return { last, styleRow: styleRow > headerRow ? styleRow : undefined };
}

/** Style ids of row `number`, by 1-based column, for the first `columns` columns (0 = no style). */
function rowStyles(sheet: SheetXml, number: number, columns: number): Map<number, number> {
  const styles = new Map<number, number>();
  const slot = sheet.row(number);
  if (!slot) return styles;
  const row = parseRow(slot.xml, sheet.prefix);
  for (const cell of row.cells) {
    if (cell.column > columns) continue;
    const style = styleOf(cell.xml);
    if (style) styles.set(cell.column, style);
  }
  return styles;
}

/** Which deleted rows stay as an emptied last row of their table (as Excel keeps one row under the header). */
export function splitTableDeletes(
  tables: readonly TablePart[],
  sheetRows: readonly number[],
  apiRow: (r: number) => number,
) {
  const deleted = new Set(sheetRows);
  const keep = new Set<number>();
  for (const table of tables) {
    const area = table.area;
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
    if (lastData < firstData) continue;
    let allGo = true;
    for (let row = firstData; row <= lastData && allGo; row++) allGo = deleted.has(row);
    if (allGo) keep.add(firstData);
  }
  return { remove: sheetRows.filter((row) => !keep.has(row)), clear: [...keep] };
}

/** Empties a row's values, keeping each cell's style (as clearing cells in Excel does). */
function clearRow(sheet: SheetXml, number: number): void {
  const slot = sheet.row(number);
  if (!slot) return;
  const row = parseRow(slot.xml, sheet.prefix);
  row.cells = row.cells.flatMap((cell) => {
    const style = styleOf(cell.xml);
    return style
      ? [{ column: cell.column, xml: `<${sheet.prefix}c r="${cellRef(cell.column, number)}" s="${style}"/>` }]
      : [];
  });
  slot.xml = rowToXml(row, sheet.prefix);
  sheet.changed = true;
}

function growTables(
  tables: readonly TablePart[],
  after: number,
  last: number,
  columns: ReadonlySet<number>,
): void {
  if (last <= after || columns.size === 0) return;
  for (const table of tables) {
    const area = table.area;
    if (table.totalsRow || !area || area.top > after || area.bottom < after || area.bottom >= last) continue;
    if ([...columns].some((column) => column < area.left || column > area.right)) continue;
    setTableArea(table, { ...area, bottom: last });
  }
}

/**
 * Appended rows inside a table get its calculated columns' formulas (as a row typed into an Excel table does),
 * except in a cell the write itself filled.
 */
function fillCalculatedColumns(edit: SheetEdit, rows: readonly number[]): boolean {
  let wrote = false;
  const formulas: WriteOptions = { allowFormulas: true, userEntered: false };
  for (const table of edit.tables) {
    const area = table.area;
    if (!area) continue;
    const lastData = area.bottom - (table.totalsRow ? 1 : 0);
    table.calculated.forEach((formula, i) => {
      if (formula === undefined) return;
      const column = area.left + i;
      for (const row of rows) {
        if (row <= area.top || row > lastData) continue;
        const slot = edit.sheet.row(row);
        const existing = slot ? cellAt(parseRow(slot.xml, edit.sheet.prefix), column) : undefined;
        if (existing && HAS_CONTENT.test(existing.xml)) continue;
        writeRow(edit, row, [{ column: column - 1, value: `=${formula}` }], formulas);
        wrote = true;
      }
    });
  }
  return wrote;
}

/** A cell element with a value, a formula or an inline string (not just a style). */
const HAS_CONTENT = /<(?:[\w.-]+:)?(?:v|f|is)[\s>/]/;

/** `<dimension ref>` grown to cover the data (rows and columns). */
function updateDimension(sheet: SheetXml, columns: number): void {
  const m = /<(?:[A-Za-z_][\w.-]*:)?dimension\b[^>]*>/.exec(sheet.head);
  if (!m) return;
  const area = parseArea(getAttr(m[0], 'ref'));
  const last = sheet.lastRowNumber;
  if (last === 0) return;
  const left = area?.left ?? 1;
  const top = Math.min(area?.top ?? 1, sheet.firstRowNumber || 1);
  const right = Math.max(area?.right ?? 1, columns);
  const ref = `${columnLetter(left)}${top}:${columnLetter(right)}${last}`;
  sheet.head = sheet.head.replace(m[0], setAttr(m[0], 'ref', ref));
}

export function applyPlanToSheet(
  edit: SheetEdit,
  tab: CellTab,
  plan: WritePlan,
  options: WriteOptions,
): EditResult {
  const { sheet } = edit;
  const dates: DateColumns = (column, sheetRow) =>
    columnDateFormat(tab, column - 1, sheetRow - tab.headerRow - 1);
  let formulas = false;
  const deletes = splitTableDeletes(
    edit.tables,
    plan.deletes.map((row) => tab.headerRow + row),
    (sheetRow) => sheetRow - tab.headerRow,
  );

  // 1. Updates, in place, with the row numbers the client saw.
  for (const update of plan.updates) {
    // An update whose every value the cells already read as (round-trip.ts) leaves the row's bytes alone.
    if (update.cells.length === 0) continue;
    if (writeRow(edit, tab.headerRow + update.row, update.cells, options, undefined, dates)) formulas = true;
  }

  // 2. Deletes; then the rows kept for a table are emptied.
  const removed = new RowMap(deletes.remove);
  if (deletes.remove.length > 0) deleteSheetRows(edit, deletes.remove);
  const kept = new Set(deletes.clear.map((row) => removed.row(row) as number));
  for (const row of kept) clearRow(sheet, row);

  // 3. An empty tab gets a header from the appended keys, as text in row 1.
  let headerRow = tab.headerRow;
  if (plan.newHeader) {
    headerRow = 1;
    writeRow(
      edit,
      1,
      plan.header.map((name, column) => ({ column, value: name })),
      { allowFormulas: false, userEntered: false },
    );
  }

  // 4. Appends after the last data row, styled like it (a kept, emptied table row is filled first).
  const place = appendPlace(headerRow, tab.typed.length - deletes.remove.length, kept);
  let last = place.last;
  // A table emptied by the deletes keeps a row, which the plan's check (sheet-limits.ts) cannot see.
  if (last + plan.appends.length > EXCEL_MAX_ROWS)
    throw rowsPastLimit(tab, last + plan.appends.length, EXCEL_MAX_ROWS);
  const before = last;
  const appended: number[] = [];
  const template =
    place.styleRow === undefined
      ? new Map<number, number>()
      : rowStyles(sheet, place.styleRow, plan.header.length);
  const filled = new Set<number>();
  for (const cells of plan.appends) {
    last++;
    appended.push(last);
    if (writeRow(edit, last, cells, options, template, dates)) formulas = true;
    for (const { column, value } of cells) if (value !== null && value !== '') filled.add(column + 1);
  }
  growTables(edit.tables, before, last, filled);
  if (fillCalculatedColumns(edit, appended)) formulas = true;
  updateDimension(sheet, plan.header.length);

  const changed = plan.updates.length + plan.deletes.length + plan.appends.length > 0;
  return {
    changed,
    deleted: deletes.remove.length > 0,
    formulas,
    rows: {
      updated: plan.updates.map((u) => tab.headerRow + u.row),
      deleted: deletes.remove,
      cleared: [...kept],
      newHeader: plan.newHeader,
      appended,
    },
  };
}
