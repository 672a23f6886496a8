/**
 * Google counts a spreadsheet's cells over every tab's whole grid, empty cells included (10,000,000 at most):
 * the way a write is sent is chosen so the grid it leaves stays within that, or the write is refused first.
 */

import { assertCellsFit } from '../sheet-limits.ts';
import type { CellLimits } from '../source.ts';
import type { SheetMeta } from './read.ts';
import type { Sending } from './write.ts';

const cellsOf = (grid: { rowCount: number; columnCount: number }): number => grid.rowCount * grid.columnCount;

/** The first of `ways` (preferred first) whose grid fits; throws 409 `conflict` when none does. */
export function sendingWithinCells(
  ways: readonly Sending[],
  sheets: ReadonlyMap<string, SheetMeta>,
  sheet: SheetMeta,
  limits: CellLimits,
): Sending {
  let before = 0;
  for (const each of sheets.values()) before += cellsOf(each);
  const others = before - cellsOf(sheet);
  const cells = (way: Sending) => ({
    before,
    after: others + cellsOf({ rowCount: way.grid.rows, columnCount: way.grid.columns }),
  });
  const fitting = ways.find((way) => {
    const { after } = cells(way);
    return limits.maxCells === undefined || after <= limits.maxCells || after <= before;
  });
  if (fitting) return fitting;
  const last = ways[ways.length - 1] as Sending;
  assertCellsFit(cells(last), limits);
  return last;
}
