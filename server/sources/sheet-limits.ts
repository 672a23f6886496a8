/**
 * How big a tab or a spreadsheet may grow, checked against a write's plan (plan.ts) before anything is written,
 * with the source's own limits as data (`CellLimits`): a write that would take a tab past its last row or column,
 * or a spreadsheet's grids past their cells, is refused whole with 409 `conflict`, naming the limit and what is
 * left. A file past the limit would not open in Excel; Google refuses the request itself, after quota is spent.
 * Only growth is refused: a tab already past a limit (a long `.csv`) can still be updated and shortened.
 */
import { AppError } from '../errors.ts';
import { grouped } from '../lib/quantity.ts';
import type { WritePlan } from './plan.ts';
import type { CellLimits, TabSnapshot } from './source.ts';
import { rowCountOf } from './tab-rows.ts';

const count = grouped;

function plural(n: number, noun: string): string {
  return `${count(n)} ${n === 1 ? noun : `${noun}s`}`;
}

/** The tab's last row with content now, and after the plan (a new header goes to row 1). */
export function lastRowAfter(tab: TabSnapshot, plan: WritePlan): { before: number; after: number } {
  const before = tab.headerRow + rowCountOf(tab);
  const headerRow = plan.newHeader ? 1 : tab.headerRow;
  return { before, after: headerRow + rowCountOf(tab) - plan.deletes.length + plan.appends.length };
}

/** The refusal of a write that would end `tab` at row `after`, past `maxRows`. */
export function rowsPastLimit(tab: TabSnapshot, after: number, maxRows: number): AppError {
  const before = tab.headerRow + rowCountOf(tab);
  const left = Math.max(0, maxRows - before);
  return new AppError(
    'conflict',
    `The tab "${tab.name}" holds at most ${plural(maxRows, 'row')}, the header row and any rows above ` +
      `it included; its last row is ${count(before)}, so ${plural(left, 'row')} ${left === 1 ? 'is' : 'are'} ` +
      `left and this write needs ${count(after - before)}. Nothing was written.`,
    { limit: maxRows, limit_of: 'rows', left, needed: after - before },
  );
}

/** Throws 409 `conflict` when the plan would put a row past `maxRows` or a column past `maxColumns`. */
export function assertTabFits(tab: TabSnapshot, plan: WritePlan, limits: CellLimits): void {
  const { before, after } = lastRowAfter(tab, plan);
  if (after > limits.maxRows && after > before) throw rowsPastLimit(tab, after, limits.maxRows);
  const columns = plan.header.length;
  if (columns > limits.maxColumns && columns > tab.header.length) {
    const left = Math.max(0, limits.maxColumns - tab.header.length);
    throw new AppError(
      'conflict',
      `The tab "${tab.name}" holds at most ${plural(limits.maxColumns, 'column')}; ` +
        `${plural(left, 'column')} ${left === 1 ? 'is' : 'are'} left and this write needs ` +
        `${count(columns - tab.header.length)}. Nothing was written.`,
      { limit: limits.maxColumns, limit_of: 'columns', left, needed: columns - tab.header.length },
    );
  }
}

/**
 * Throws 409 `conflict` when a write would grow the spreadsheet's grids (every tab's rows times columns, empty
 * cells included, as Google counts them) past `maxCells`. `before` and `after` are the totals of all tabs.
 */
export function assertCellsFit(cells: { before: number; after: number }, limits: CellLimits): void {
  const max = limits.maxCells;
  if (max === undefined || cells.after <= max || cells.after <= cells.before) return;
  const left = Math.max(0, max - cells.before);
  throw new AppError(
    'conflict',
    `The spreadsheet holds at most ${plural(max, 'cell')} in all its tabs together (empty cells of each tab's ` +
      `grid included); ${plural(left, 'cell')} ${left === 1 ? 'is' : 'are'} left and this write needs ` +
      `${count(cells.after - cells.before)}. Nothing was written.`,
    { limit: max, limit_of: 'cells', left, needed: cells.after - cells.before },
  );
}
