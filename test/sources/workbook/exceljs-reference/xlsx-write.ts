/**
 * Applying a validated WritePlan to an ExcelJS worksheet. Only the cells the plan names are touched:
 * ExcelJS keeps every other cell's value, style, formula and the sheet's merges, widths and other tabs as
 * it loaded them.
 *
 * Tables ("Format as Table") follow the rows like they do in Excel: see xlsx-tables.ts.
 *
 * Style objects are shared between cells that had the same style in the file (ExcelJS caches them per
 * style id), so we never mutate one in place: a cell that needs a new number format gets a new object.
 */
import ExcelJS from 'exceljs';
import { DATE_FORMAT, DATE_TIME_FORMAT, interpretInput } from '../../../../server/sources/input.ts';
import type { CellWrite, WritePlan } from '../../../../server/sources/plan.ts';
import type { TabSnapshot, WriteOptions } from '../../../../server/sources/source.ts';
import { encodeCellText } from '../../../../server/sources/workbook/ooxml-text.ts';
import { RowMap } from '../../../../server/sources/workbook/row-map.ts';
import { isDateFormat, isGeneralFormat } from '../../../../server/sources/workbook/values.ts';
import { deleteSheetRows, unshareFormulas } from './xlsx-delete.ts';
import { restoreTableHeaderRows } from './xlsx-fixups.ts';
import { growTablesOverAppends, shiftTables, splitTableDeletes } from './xlsx-tables.ts';

function setNumFmt(cell: ExcelJS.Cell, numFmt: string): void {
  cell.style = { ...cell.style, numFmt };
}

function isSharedFormulaMaster(cell: ExcelJS.Cell): boolean {
  const model = cell.model as unknown as { shareType?: string; ref?: string };
  return cell.formula !== undefined && model.shareType === 'shared';
}

/** Store one API value in one cell; the cell's style stays unless a date/percent/currency format is needed. */
function writeCell(cell: ExcelJS.Cell, input: CellWrite['value'], options: WriteOptions): void {
  // A merged non-anchor cell cannot hold a value (ExcelJS would write through to the anchor cell, i.e. a
  // different column): it reads as empty, and writing to it is a no-op, as typing into it is in Excel.
  if (cell.type === ExcelJS.ValueType.Merge) return;
  // Writing over the master of a shared formula would orphan the cells that borrow its text.
  if (isSharedFormulaMaster(cell)) unshareFormulas(cell.worksheet);
  const parsed = interpretInput(input, options);
  switch (parsed.kind) {
    case 'empty':
      cell.value = null; // value removed, style kept
      break;
    case 'number':
      cell.value = parsed.value;
      if (parsed.numFmt && isGeneralFormat(cell.numFmt)) setNumFmt(cell, parsed.numFmt);
      break;
    case 'boolean':
      cell.value = parsed.value;
      break;
    case 'date':
      cell.value = parsed.value;
      // A date needs a date format to be a date at all (in the file it is just a serial number). We also
      // replace a non-date format, or the cell would read back as a plain number after a reload.
      if (!isDateFormat(cell.numFmt)) setNumFmt(cell, parsed.hasTime ? DATE_TIME_FORMAT : DATE_FORMAT);
      break;
    case 'text':
      cell.value = encodeCellText(parsed.value);
      break;
    case 'formula':
      // No cached result: reads return null for it until an office program recalculates and saves.
      cell.value = { formula: parsed.formula } as ExcelJS.CellFormulaValue;
      break;
  }
}

function writeCells(row: ExcelJS.Row, cells: readonly CellWrite[], options: WriteOptions): void {
  for (const { column, value } of cells) writeCell(row.getCell(column + 1), value, options);
}

export function applyPlanToWorksheet(
  ws: ExcelJS.Worksheet,
  tab: TabSnapshot,
  plan: WritePlan,
  options: WriteOptions,
): void {
  // 0. Tables first, before anything changes: their header flags as the file meant them (what the delete
  //    and append rules below rely on), and which deleted rows must stay as a table's last, empty row (a
  //    delete of a table's header row is refused here).
  restoreTableHeaderRows(ws);
  const deletes = splitTableDeletes(
    ws,
    plan.deletes.map((row) => tab.headerRow + row),
    (sheetRow) => sheetRow - tab.headerRow,
  );

  // 1. Updates, in place, with the row numbers the client saw.
  for (const update of plan.updates) writeCells(ws.getRow(tab.headerRow + update.row), update.cells, options);

  // 2. Deletes (the plan lists them bottom-up; the shifter handles them all at once anyway), with table
  //    ranges following them; then the rows kept for a table are emptied (values only: the formatting stays).
  const removed = new RowMap(deletes.remove);
  if (deletes.remove.length > 0) {
    deleteSheetRows(ws, deletes.remove);
    shiftTables(ws, removed);
  }
  const kept = new Set(deletes.clear.map((row) => removed.row(row) as number));
  for (const row of kept) {
    ws.getRow(row).eachCell((cell) => {
      if (cell.type !== ExcelJS.ValueType.Merge) cell.value = null;
    });
  }

  // 3. An empty tab gets a header from the appended keys, written as plain text at row 1.
  let headerRow = tab.headerRow;
  if (plan.newHeader) {
    headerRow = 1;
    const row = ws.getRow(1);
    plan.header.forEach((name, i) => {
      row.getCell(i + 1).value = encodeCellText(name);
    });
  }

  // 4. Appends go right after the last data row and take the style of that row, column by column, so the
  //    new row looks like its neighbours (what Google's append does). A kept, emptied table row at the end
  //    of the tab is not a data row any more: the first new row goes into it.
  let last = headerRow + tab.typed.length - deletes.remove.length;
  while (last > headerRow && kept.has(last)) last--;
  const before = last;
  const styleRow = kept.has(last + 1) ? last + 1 : last; // the emptied row kept its formatting
  const styleSource = styleRow > headerRow ? ws.getRow(styleRow) : null;
  const styles = plan.header.map((_, i) => styleSource?.getCell(i + 1).style);
  const filled = new Set<number>();
  for (const cells of plan.appends) {
    last++;
    const row = ws.getRow(last);
    styles.forEach((style, i) => {
      if (style && Object.keys(style).length > 0) row.getCell(i + 1).style = { ...style };
    });
    writeCells(row, cells, options);
    for (const { column, value } of cells) if (value !== null && value !== '') filled.add(column + 1);
  }
  // 5. A table the new rows continue grows over them, as in Excel.
  growTablesOverAppends(ws, before, last, filled);

  // Cached results of formulas that depend on what we wrote are now stale; ask Excel/LibreOffice to
  // recalculate everything when the file is next opened.
  if (plan.updates.length + plan.deletes.length + plan.appends.length > 0) {
    ws.workbook.calcProperties = { ...ws.workbook.calcProperties, fullCalcOnLoad: true };
  }
}
