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
 * Tables without a `<tableStyleInfo>` (openpyxl writes them so) load with `style: null`, and ExcelJS's
 * save then fails on `null.theme`. An empty style object with no theme keeps them unstyled, as they were.
 */
export function repairTableStyles(ws: ExcelJS.Worksheet): void {
  const tables = (ws as unknown as { tables?: Record<string, { table?: { style?: unknown } }> }).tables ?? {};
  for (const holder of Object.values(tables)) {
    const table = holder.table;
    if (table && table.style === null) {
      table.style = {
        theme: null,
        showFirstColumn: false,
        showLastColumn: false,
        showRowStripes: false,
        showColumnStripes: false,
      };
    }
  }
}
