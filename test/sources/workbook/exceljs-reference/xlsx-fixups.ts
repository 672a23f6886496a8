/**
 * Workarounds for ExcelJS save bugs, applied right before serializing.
 *
 * Data validations: ExcelJS keeps one entry per cell and, on save, re-groups them into ranges after
 * sorting the addresses as strings (B10 < B2). A validation on B2:B11 comes out as two overlapping ranges,
 * B10:B11 and B2:B11, and LibreOffice/Numbers then apply only the first (exceljs issue #2820). We hand
 * ExcelJS ready-made, non-overlapping ranges instead (runs of consecutive rows per column), which its
 * writer emits unchanged.
 */
import type ExcelJS from 'exceljs';
import { parseArea, tablesOf } from './xlsx-tables.ts';

const CELL = /^([A-Z]+)(\d+)$/;

export function compactDataValidations(ws: ExcelJS.Worksheet): void {
  const holder = (ws as unknown as { dataValidations: { model: Record<string, unknown> } }).dataValidations;
  const model = holder.model ?? {};
  const compacted: Record<string, unknown> = {};
  // validation (by identity: cells loaded from one <dataValidation> share the object) -> column -> rows
  const groups = new Map<unknown, Map<string, number[]>>();
  for (const [address, validation] of Object.entries(model)) {
    if (validation === undefined || validation === null) continue;
    const m = CELL.exec(address);
    if (!m) {
      compacted[address] = validation; // already a range
      continue;
    }
    let columns = groups.get(validation);
    if (!columns) {
      columns = new Map();
      groups.set(validation, columns);
    }
    const column = m[1] as string;
    const rows = columns.get(column) ?? [];
    rows.push(Number(m[2]));
    columns.set(column, rows);
  }
  for (const [validation, columns] of groups) {
    for (const [column, rows] of columns) {
      rows.sort((a, b) => a - b);
      let start = rows[0] as number;
      for (let i = 1; i <= rows.length; i++) {
        const row = rows[i];
        const previous = rows[i - 1] as number;
        if (row === previous + 1) continue;
        compacted[start === previous ? `${column}${start}` : `${column}${start}:${column}${previous}`] =
          validation;
        if (row !== undefined) start = row;
      }
    }
  }
  holder.model = compacted;
}

/**
 * The table repairs, run on every worksheet before each save (xlsx-document.ts calls this one; it covers
 * all three, not only the styles):
 * - Tables without a `<tableStyleInfo>` (openpyxl writes them so) load with `style: null`, and ExcelJS's
 *   save then fails on `null.theme`. An empty style object with no theme keeps them unstyled, as they were.
 * - {@link restoreTableHeaderRows} and {@link restoreFilterButtons}: what ExcelJS's loader gets wrong.
 */
export function repairTables(ws: ExcelJS.Worksheet): void {
  for (const table of tablesOf(ws)) {
    if (table.style === null) {
      table.style = {
        theme: null,
        showFirstColumn: false,
        showLastColumn: false,
        showRowStripes: false,
        showColumnStripes: false,
      };
    }
  }
  restoreTableHeaderRows(ws);
  restoreFilterButtons(ws);
}

function cellText(ws: ExcelJS.Worksheet, row: number, column: number): string {
  return ws.findCell(row, column)?.text ?? '';
}

/**
 * ExcelJS reads a table's header row only from an explicit `headerRowCount="1"`, but 1 is the default and
 * Excel leaves the attribute out, so every table Excel made loads as headerless and would be saved with
 * `headerRowCount="0"`: its header turned into a data row, and an auto filter Excel has to repair (see
 * fslaborg/FsSpreadsheet#69, exceljs#1615). The loaded model cannot tell "left out" from "0" apart, so
 * this goes by the cells: a table whose first row holds exactly its column names has a header row (a
 * table with a header row must show its column names there; a headerless table whose first data row
 * repeats them is not a realistic case). Idempotent; also run before a write looks at the tables.
 */
export function restoreTableHeaderRows(ws: ExcelJS.Worksheet): void {
  for (const table of tablesOf(ws)) {
    if (table.headerRow) continue;
    const area = parseArea(table.tableRef);
    if (!area || area.right - area.left + 1 !== table.columns.length) continue;
    const named = table.columns.every(
      (column, i) => column.name !== '' && cellText(ws, area.top, area.left + i) === column.name,
    );
    if (named) table.headerRow = true;
  }
}

/**
 * An `<autoFilter>` without `<filterColumn>` children (what Excel and openpyxl write) shows every filter
 * button, but ExcelJS loads its columns with `filterButton` unset and saves them as
 * `hiddenButton="1"`: every table would lose its filter drop-downs on the first write. Unset means shown.
 */
export function restoreFilterButtons(ws: ExcelJS.Worksheet): void {
  for (const table of tablesOf(ws)) {
    if (table.autoFilterRef === undefined) continue;
    for (const column of table.columns) if (column.filterButton === undefined) column.filterButton = true;
  }
}
