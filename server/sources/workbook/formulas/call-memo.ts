/**
 * Calls of a function over the same ranges, answered once per computation (WorkbookEvaluator): a "share of the
 * total" in every row (`=A2/SUM(A:A)`) or a tab of sums of one column reads that column once, not once per
 * formula. Only pure functions of values (an aggregate, a lookup), only calls whose arguments are ranges and
 * constants (a call naming a single cell, as `COUNTIF(A:A,A2)`, differs from row to row and is not kept), and
 * only plain results. The key is taken before the library reads the ranges, so a call answered from here reads
 * nothing.
 */

/** Functions whose result depends only on the values of their arguments. */
const PURE = new Set([
  'SUM',
  'SUMIF',
  'SUMIFS',
  'SUMPRODUCT',
  'SUMSQ',
  'PRODUCT',
  'COUNT',
  'COUNTA',
  'COUNTBLANK',
  'COUNTIF',
  'COUNTIFS',
  'AVERAGE',
  'AVERAGEA',
  'AVERAGEIF',
  'AVERAGEIFS',
  'MAX',
  'MAXA',
  'MAXIFS',
  'MIN',
  'MINA',
  'MINIFS',
  'MEDIAN',
  'MODE.SNGL',
  'STDEV',
  'STDEV.S',
  'STDEV.P',
  'VAR',
  'VAR.S',
  'VAR.P',
  'LARGE',
  'SMALL',
  'MATCH',
  'VLOOKUP',
  'HLOOKUP',
  'XLOOKUP',
  'LOOKUP',
  'TEXTJOIN',
]);

/** Most calls kept per computation: distinct keys are as many as distinct formula texts at most. */
export const MAX_KEPT_CALLS = 10_000;

interface RangeArg {
  ref: {
    sheet?: string;
    from?: { row: number | null; col: number | null };
    to?: { row: number | null; col: number | null };
  };
}

/**
 * The key of a call of `name` with the parser's arguments (before it reads them) in a formula of tab `sheet`,
 * or undefined when the call is not one to keep.
 */
export function callKey(name: string, args: readonly unknown[], sheet: string): string | undefined {
  const upper = name.toUpperCase().replace(/^_XLFN\./, '');
  if (!PURE.has(upper)) return undefined;
  const parts: unknown[] = [upper];
  let ranges = 0;
  for (const arg of args) {
    if (arg === null || typeof arg === 'number' || typeof arg === 'boolean' || typeof arg === 'string') {
      parts.push(arg);
      continue;
    }
    const ref = (arg as RangeArg | undefined)?.ref;
    if (typeof arg !== 'object' || !ref?.from || !ref.to) return undefined; // a cell, an array, an error
    ranges++;
    parts.push([(ref.sheet || sheet).toLowerCase(), ref.from.row, ref.from.col, ref.to.row, ref.to.col]);
  }
  return ranges > 0 ? JSON.stringify(parts) : undefined;
}

/** Whether a call's result may be kept: a plain value (not an error, an array or a reference). */
export function keepable(result: unknown): boolean {
  return typeof result === 'number' || typeof result === 'string' || typeof result === 'boolean';
}
