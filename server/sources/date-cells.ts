/**
 * ISO 8601 text written where dates are (docs/api.md, "How writes behave"): into a cell that holds a date, or into a column whose
 * cells are dates, such text is a date, as the value a date cell reads as must be when written back changed.
 * Which cells hold dates is each kind's own knowledge (number formats); which cell speaks for a column is
 * the same for every kind: the nearest value above the row, else below, as a spreadsheet extends a
 * column's format to the rows it fills.
 * A number written into a date cell is a serial the cell shows as a date; which cells of a write those are, and
 * in which date system, each kind tells the planning through `DateTargets` (cell-rules.ts holds the rule).
 */
import type { DateSystem } from './serial-dates.ts';
import type { CellValue } from './source.ts';

/** The date system a target cell shows a number in, when the cell is formatted as a date; else undefined. */
export type DateTarget = DateSystem | undefined;

/** Where a write's numbers land on date cells, in the tab as it is before the write: a kind's own knowledge. */
export interface DateTargets {
  /** The cell of data row `row` (API row, 1-based), column `column` (0-based). */
  updated(row: number, column: number): DateTarget;
  /**
   * The cells of the rows a write appends after it deletes the API rows `deleted`: of the `nth` appended row
   * (0-based), column `column` (0-based). Asked once per write; the function it gives is asked per cell.
   */
  appended(deleted: readonly number[]): (nth: number, column: number) => DateTarget;
}

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
