/**
 * Deleting whole rows from an ExcelJS worksheet, with everything below moving up.
 *
 * ExcelJS's own `spliceRows` is not safe here: it copies merged cells as plain values, never moves the
 * merge list, and leaves formulas pointing at their old rows. Instead we rewrite the worksheet model (the
 * same structure ExcelJS builds when it loads a file and serializes when it saves) with new row numbers,
 * shifted merges, data validations, conditional-format ranges, auto filter and formula references, then
 * load it back into the worksheet. Formulas on other sheets that point at this one are shifted too.
 *
 * Defined names pointing at the sheet are shifted as well, and Excel tables move or shrink (xlsx-tables.ts).
 * Not shifted (ExcelJS exposes no safe handle on them): images/drawing anchors, formulas inside
 * conditional-format rules and data-validation lists, row page breaks.
 */
import ExcelJS from 'exceljs';
import { shiftFormula, shiftRange } from '../../../../server/sources/workbook/formulas/formula-text.ts';
import { RowMap } from '../../../../server/sources/workbook/row-map.ts';

const T = ExcelJS.ValueType;

interface CellModel {
  address: string;
  type: number;
  formula?: string;
  sharedFormula?: string;
  shareType?: string;
  ref?: string;
  style?: unknown;
  [key: string]: unknown;
}
interface RowModel {
  number: number;
  cells: CellModel[];
  [key: string]: unknown;
}
interface ConditionalFormatting {
  ref: string;
  [key: string]: unknown;
}
interface SheetModel {
  rows: RowModel[];
  merges: string[];
  mergeCells?: string[];
  dataValidations: Record<string, unknown>;
  conditionalFormattings?: ConditionalFormatting[];
  autoFilter?: unknown;
  [key: string]: unknown;
}

/**
 * Turn shared formulas (one master formula reused by a block of cells) into ordinary per-cell formulas.
 * A shared formula only stores the master's text, so once rows move or the master is overwritten the
 * others would be computed from the wrong place. The formulas mean exactly the same afterwards.
 */
export function unshareFormulas(ws: ExcelJS.Worksheet): void {
  const dependents: [ExcelJS.Cell, string][] = [];
  const masters: ExcelJS.Cell[] = [];
  ws.eachRow((row) => {
    row.eachCell((cell) => {
      if (cell.type !== T.Formula) return;
      const model = cell.model as unknown as CellModel;
      if (model.sharedFormula) dependents.push([cell, cell.formula]);
      else if (model.shareType === 'shared') masters.push(cell);
    });
  });
  for (const [cell, formula] of dependents)
    cell.value = { formula, result: cell.result } as ExcelJS.CellValue;
  for (const cell of masters)
    cell.value = { formula: cell.formula, result: cell.result } as ExcelJS.CellValue;
}

function splitAddress(address: string): [string, number] {
  const m = /^([A-Z]+)(\d+)$/.exec(address);
  return m ? [m[1] as string, Number(m[2])] : [address, 0];
}

function shiftRanges(refs: string, rows: RowMap): string {
  return refs
    .split(/\s+/)
    .map((r) => shiftRange(r, rows))
    .filter((r): r is string => r !== null)
    .join(' ');
}

function shiftAutoFilter(filter: unknown, rows: RowMap): unknown {
  if (typeof filter === 'string') return shiftRange(filter, rows) ?? undefined;
  return filter; // object form ({from, to}) is rare in loaded files; left as is
}

/** Workbook-level names like `Prices = Orders!$C$2:$C$301`; a name whose cells were all deleted goes. */
function shiftDefinedNames(ws: ExcelJS.Worksheet, rows: RowMap): void {
  const names = ws.workbook.definedNames as unknown as { model: { name: string; ranges: string[] }[] };
  const ctx = { sheetName: ws.name, onSameSheet: false, rows };
  names.model = names.model.map((n) => ({
    ...n,
    ranges: n.ranges.map((range) => shiftFormula(range, ctx)).filter((range) => !range.includes('#REF!')),
  }));
}

function shiftOtherSheets(ws: ExcelJS.Worksheet, rows: RowMap): void {
  for (const other of ws.workbook.worksheets) {
    if (other === ws) continue;
    other.eachRow((row) => {
      row.eachCell((cell) => {
        if (cell.type !== T.Formula) return;
        const model = cell.model as unknown as CellModel;
        const formula = cell.formula;
        const shifted = shiftFormula(formula, { sheetName: ws.name, onSameSheet: false, rows });
        if (shifted === formula) return;
        const value: Record<string, unknown> = { formula: shifted, result: cell.result };
        if (model.shareType) value.shareType = model.shareType;
        if (model.ref) value.ref = model.ref;
        cell.value = value as unknown as ExcelJS.CellValue;
      });
    });
  }
}

/** Delete the given 1-based sheet rows of `ws`; rows below move up. */
export function deleteSheetRows(ws: ExcelJS.Worksheet, sheetRows: readonly number[]): void {
  if (sheetRows.length === 0) return;
  const rows = new RowMap(sheetRows);
  for (const sheet of ws.workbook.worksheets) unshareFormulas(sheet);
  shiftOtherSheets(ws, rows);
  shiftDefinedNames(ws, rows);

  const model = ws.model as unknown as SheetModel;
  // The model setter re-applies merges and refuses ones that overlap existing merges: clear them first.
  for (const range of model.merges) ws.unMergeCells(range);
  const ctx = { sheetName: ws.name, onSameSheet: true, rows };

  const newRows: RowModel[] = [];
  for (const row of model.rows) {
    const number = rows.row(row.number);
    if (number === null) continue;
    const cells = row.cells.map((cell): CellModel => {
      const [col] = splitAddress(cell.address);
      const address = `${col}${number}`;
      // Merged non-anchor cells would be dropped by the row setter (and lose their borders); keep them as
      // styled empty cells, the merge list below turns them back into merged cells.
      if (cell.type === T.Merge) return { address, type: T.Null, style: cell.style };
      const moved: CellModel = { ...cell, address };
      if (cell.type === T.Formula && cell.formula) moved.formula = shiftFormula(cell.formula, ctx);
      if (cell.type === T.Formula && cell.ref) moved.ref = shiftRange(cell.ref, rows) ?? address;
      return moved;
    });
    newRows.push({ ...row, number, cells });
  }

  const mergeCells = model.merges
    .map((range) => shiftRange(range, rows))
    .filter((range): range is string => range?.includes(':') === true);

  const dataValidations: Record<string, unknown> = {};
  for (const [address, validation] of Object.entries(model.dataValidations ?? {})) {
    if (validation === undefined) continue;
    const moved = shiftRange(address, rows);
    if (moved !== null) dataValidations[moved] = validation;
  }

  const conditionalFormattings = (model.conditionalFormattings ?? [])
    .map((cf) => ({ ...cf, ref: shiftRanges(cf.ref, rows) }))
    .filter((cf) => cf.ref !== '');

  const next: SheetModel = {
    ...model,
    rows: newRows,
    mergeCells,
    dataValidations,
    conditionalFormattings,
    autoFilter: shiftAutoFilter(model.autoFilter, rows),
  };
  ws.model = next as unknown as ExcelJS.WorksheetModel;
}
