/**
 * Round trips: a value read from the API and written back unchanged leaves its cell exactly as it was. The
 * API reads a date cell as ISO text, a formula cell as its result (or, with `values=formula`, its text) and a
 * number as a number; written back as such, each would become something else (text, a constant), so a write
 * of the value a cell already reads as does not touch that cell at all: its type, number format, style and
 * formula stay. For every kind of source, applied when a write is planned.
 */
import type { CellInput, CellValue, TabSnapshot } from './source.ts';
import { rowOf } from './tab-rows.ts';

/** A cell of a planned write (plan.ts's CellWrite; named by shape so planning and this stay one-way). */
interface CellWrite {
  column: number;
  value: CellInput;
}

/** Whether writing `value` into a cell that reads as `current` (or, for a formula, as `formula`) changes it. */
function writesSame(
  value: CellValue,
  current: CellValue | undefined,
  formula: CellValue | undefined,
): boolean {
  if (value === null || value === '') return current === null || current === undefined || current === '';
  if (value === current) return true;
  return typeof value === 'string' && value.startsWith('=') && value === formula;
}

/**
 * The cells of an update of API row `row` that change something: each column's last write in the batch,
 * unless it equals what the cell reads as now.
 */
export function changedCells<C extends CellWrite>(tab: TabSnapshot, row: number, cells: readonly C[]): C[] {
  const last = new Map<number, C>();
  for (const cell of cells) {
    last.delete(cell.column);
    last.set(cell.column, cell);
  }
  const current = rowOf(tab, row - 1) ?? [];
  const out: C[] = [];
  for (const cell of last.values()) {
    const isFormulaText = typeof cell.value === 'string' && cell.value.startsWith('=');
    const formula = isFormulaText ? tab.withFormulas?.[row - 1]?.[cell.column] : undefined;
    if (!writesSame(cell.value, current[cell.column], formula)) out.push(cell);
  }
  return out;
}
