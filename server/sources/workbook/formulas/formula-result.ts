/**
 * What a formula's cell shows of what the parser answered: one value, an error's text, or nothing when it cannot
 * be shown; of an array, the cell on the formula's own row (Excel's implicit intersection) or the first.
 */
import { type FormulaErrorValue, formulaLibrary } from './parser.ts';
import { cellOf, extentOf, originOf } from './range-extent.ts';

/** A computed result: a value, an error text (`#DIV/0!`), or nothing when the formula cannot be computed. */
export type FormulaResult =
  | { kind: 'number'; value: number }
  | { kind: 'text'; value: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'error'; value: string };

/**
 * What a formula that is not an array formula shows of a column (or row) of cells it gives: the cell on its own
 * row (or column), as Excel reads `=B:B*2` or `=IF(A:A>5,"big","small")` written down a column, or `=Price*Qty`
 * over named columns. Excel's implicit intersection, for results whose cells come from ranges that line up
 * (operators.ts `pairedOrigin`); a formula outside their rows is #VALUE!, as in Excel.
 */
export function implicitIntersection(
  value: unknown,
  row: number,
  column: number,
  plain: () => boolean,
): unknown {
  if (!Array.isArray(value)) return value;
  const origin = originOf(value);
  if (!origin || !plain()) return value;
  const grid = value as unknown[][];
  const extent = extentOf(grid);
  const r = extent.rows === 1 ? 0 : row - origin.row;
  const c = extent.columns === 1 ? 0 : column - origin.column;
  if (r < 0 || r >= extent.rows || c < 0 || c >= extent.columns) return formulaLibrary().FormulaError.VALUE;
  return cellOf(grid, r, c);
}

/** The parser's answer as a cell result: the top-left of an array, an empty result as 0 (as Excel shows it). */
export function toResult(value: unknown): FormulaResult | undefined {
  let v = value;
  while (Array.isArray(v)) v = v[0];
  if (v instanceof formulaLibrary().FormulaError)
    return { kind: 'error', value: (v as FormulaErrorValue).error };
  if (v === null || v === undefined) return { kind: 'number', value: 0 };
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return { kind: 'error', value: '#NUM!' };
    // Excel keeps 15 significant digits: 1.5*2.4 is 3.6 there, not 3.5999999999999996.
    return { kind: 'number', value: Number(v.toPrecision(15)) };
  }
  if (typeof v === 'boolean') return { kind: 'boolean', value: v };
  if (typeof v === 'string') return { kind: 'text', value: v };
  return undefined;
}
