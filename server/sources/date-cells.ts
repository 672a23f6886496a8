/**
 * ISO 8601 text written where dates are (docs/api.md, "How writes behave"): into a cell that holds a date, or into a column whose
 * cells are dates, such text is a date, as the value a date cell reads as must be when written back changed.
 * Which cells hold dates is each kind's own knowledge (number formats); which cell speaks for a column is
 * the same for every kind: the nearest value above the row, else below, as a spreadsheet extends a
 * column's format to the rows it fills.
 */
import type { CellValue } from './source.ts';

/** The index of the nearest data row to `index` (above first, then below) whose `column` holds a value; -1 if none. */
export function nearestFilledRow(
  typed: readonly (readonly CellValue[])[],
  column: number,
  index: number,
): number {
  for (let r = Math.min(index, typed.length) - 1; r >= 0; r--) if (typed[r]![column] != null) return r;
  for (let r = index + 1; r < typed.length; r++) if (typed[r]![column] != null) return r;
  return -1;
}
