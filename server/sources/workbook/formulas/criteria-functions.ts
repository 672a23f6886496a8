/**
 * COUNTIF, SUMIF, AVERAGEIF, COUNTIFS, SUMIFS, AVERAGEIFS, MAXIFS and MINIFS over criteria as Excel reads them
 * (criteria.ts), in one pass over their ranges and without a value made per cell (Formula.js's COUNTIFS made a
 * token list for every cell it tested). Ranges given to an *IFS function must all be the same shape (#VALUE!
 * otherwise); SUMIF's and AVERAGEIF's values to add are taken as large as the criteria's range from their top
 * left cell, as Excel takes them, which is why the parser hands those two its references unread.
 */
import { type Criterion, readCriterion } from './criteria.ts';
import { type FormulaErrorValue, formulaLibrary } from './parser.ts';
import { cellOf, extentOf, sameExtent, unreadCells } from './range-extent.ts';

interface Param {
  value: unknown;
}

type Grid = readonly (readonly unknown[])[];

const gridOf = (value: unknown): Grid => (Array.isArray(value) ? (value as unknown[][]) : [[value]]);
const isError = (v: unknown): v is FormulaErrorValue => v instanceof formulaLibrary().FormulaError;

/** What the matching cells' values add up to. */
interface Tally {
  count: number;
  sum: number;
  max: number;
  min: number;
}

/**
 * Tallies the cells of `values` (null: count only) at the places where every range meets its criterion, or the
 * error the arguments make: ranges of unequal shapes (`sized`: `values` may be shorter or narrower, their cells
 * past the end blank, as SUMIF's beyond the sheet's last row), a value to add that is an error where the
 * criteria match (Excel gives it back). Ranges are compared by the size they were written with, and cells past
 * what was read of them are blank (range-extent.ts): where every criterion matches a blank, a count counts them.
 */
function tally(
  values: Grid | null,
  tests: readonly { range: Grid; criterion: Criterion }[],
  sized = false,
): Tally | FormulaErrorValue {
  const first = tests[0]!.range;
  const shape = extentOf(first);
  const same = (g: Grid) => sameExtent(g, first);
  if (!tests.every((t) => same(t.range)) || (values && !sized && !same(values)))
    return formulaLibrary().FormulaError.VALUE;
  const read = [...tests.map((t) => t.range), ...(values ? [values] : [])];
  const rows = Math.min(shape.rows, Math.max(...read.map((g) => g.length)));
  const columns = Math.min(shape.columns, Math.max(...read.map((g) => g[0]?.length ?? 0)));
  const result: Tally = { count: 0, sum: 0, max: Number.NEGATIVE_INFINITY, min: Number.POSITIVE_INFINITY };
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < columns; c++) {
      if (!allMatch(tests, r, c)) continue;
      if (!values) {
        result.count++;
        continue;
      }
      const v = cellOf(values, r, c);
      if (isError(v)) return v;
      if (typeof v !== 'number') continue;
      result.count++;
      result.sum += v;
      if (v > result.max) result.max = v;
      if (v < result.min) result.min = v;
    }
  if (!values && tests.every((t) => t.criterion.test(null)))
    result.count += shape.rows * shape.columns - rows * columns;
  return result;
}

function allMatch(tests: readonly { range: Grid; criterion: Criterion }[], r: number, c: number): boolean {
  for (const { range, criterion } of tests) if (!criterion.test(cellOf(range, r, c))) return false;
  return true;
}

/** The (range, criterion) pairs from `params`, or the first error among them. */
function pairs(params: readonly Param[]): { range: Grid; criterion: Criterion }[] | FormulaErrorValue {
  if (params.length === 0 || params.length % 2 !== 0) return formulaLibrary().FormulaError.VALUE;
  const tests: { range: Grid; criterion: Criterion }[] = [];
  for (let i = 0; i < params.length; i += 2) {
    const range = params[i]!.value;
    if (isError(range)) return range;
    const criterion = readCriterion(params[i + 1]!.value);
    if (isError(criterion)) return criterion;
    tests.push({ range: gridOf(range), criterion: criterion as Criterion });
  }
  return tests;
}

/** An *IFS function: the values (first parameter, or none for COUNTIFS) tallied where the pairs all match. */
function overPairs(withValues: boolean, answer: (t: Tally) => unknown) {
  return (...params: Param[]): unknown => {
    const values = withValues ? params[0]?.value : null;
    if (isError(values)) return values;
    const tests = pairs(withValues ? params.slice(1) : params);
    if (isError(tests)) return tests;
    const t = tally(values === null ? null : gridOf(values), tests);
    return isError(t) ? t : answer(t);
  };
}

const average = (t: Tally) => (t.count === 0 ? formulaLibrary().FormulaError.DIV0 : t.sum / t.count);

/** SUMIF or AVERAGEIF, called by the parser with its context and the arguments' references unread. */
function withSizedValues(answer: (t: Tally) => unknown) {
  return (context: unknown, range: unknown, criterion: unknown, values?: unknown): unknown => {
    const library = formulaLibrary();
    const [cells, sized] = library.sizedRanges(context, range, values ?? null);
    const read = readCriterion(library.argumentValue(context, criterion));
    if (isError(read)) return read;
    const t = tally(gridOf(sized), [{ range: gridOf(cells), criterion: read as Criterion }], true);
    return isError(t) ? t : answer(t);
  };
}

/** COUNTBLANK(range): its blank cells and empty texts, those past what was read of it included. */
function countBlank(range: Param): unknown {
  const value = range.value;
  if (isError(value)) return value;
  if (!Array.isArray(value)) return value === null || value === undefined || value === '' ? 1 : 0;
  const grid = value as Grid;
  let blank = unreadCells(grid);
  for (const line of grid) for (const v of line) if (v === null || v === undefined || v === '') blank++;
  return blank;
}

export const CRITERIA_FUNCTIONS = {
  COUNTBLANK: countBlank,
  COUNTIF: (range: Param, criterion: Param) => overPairs(false, (t) => t.count)(range, criterion),
  COUNTIFS: overPairs(false, (t) => t.count),
  SUMIFS: overPairs(true, (t) => t.sum),
  AVERAGEIFS: overPairs(true, average),
  MAXIFS: overPairs(true, (t) => (t.count === 0 ? 0 : t.max)),
  MINIFS: overPairs(true, (t) => (t.count === 0 ? 0 : t.min)),
};

/** The two the parser calls with its context (it names them so itself). */
export const SIZED_CRITERIA_FUNCTIONS = {
  SUMIF: withSizedValues((t) => t.sum),
  AVERAGEIF: withSizedValues(average),
};
