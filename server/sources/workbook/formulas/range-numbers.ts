/**
 * What Excel's statistical and cash-flow functions take from a range or an array they are given: its numbers.
 * Text, logical values and blank cells in it are passed over (a literal argument still counts as written), and an
 * error in it is the answer. The functions of two ranges (CORREL, SLOPE, XNPV, ...) pass over each pair where
 * either is not a number, so the two stay aligned. Formula.js took the text in: `MEDIAN(B2:C6)` over a column of
 * tags beside one of amounts answered 5 where Excel answers 30, `PERCENTILE` of the same #VALUE!.
 */
import { formulaLibrary } from './parser.ts';

/** Each range a list of numbers. */
export const NUMBERS_ONLY = [
  'MAX',
  'MIN',
  'MEDIAN',
  'MODE.SNGL',
  'STDEV.S',
  'STDEV.P',
  'VAR.S',
  'VAR.P',
  'LARGE',
  'SMALL',
  'NPV',
  'IRR',
  'PERCENTILE.INC',
  'PERCENTILE.EXC',
  'QUARTILE.INC',
  'QUARTILE.EXC',
  'GEOMEAN',
  'SKEW',
  'SKEW.P',
  'TRIMMEAN',
  'PERCENTRANK.INC',
  'PERCENTRANK.EXC',
] as const;
const OF_NUMBERS = new Set<string>(NUMBERS_ONLY);

/** Two or more ranges read in pairs. */
export const NUMBER_PAIRS = [
  'CORREL',
  'SLOPE',
  'RSQ',
  'FORECAST',
  'COVARIANCE.P',
  'COVARIANCE.S',
  'XNPV',
  'XIRR',
  'PEARSON',
  'STEYX',
] as const;
const OF_NUMBER_PAIRS = new Set<string>(NUMBER_PAIRS);

/**
 * The arguments of `name` with each range (given flat: `flat[i]` is true) held to its numbers; an error the
 * function is to answer instead; or the arguments as they are for any other function.
 */
export function rangeNumbers(name: string, args: unknown[], flat: readonly boolean[]): unknown[] | Error {
  const single = OF_NUMBERS.has(name);
  if (!single && !OF_NUMBER_PAIRS.has(name)) return args;
  const { FormulaError } = formulaLibrary();
  const lists = args.flatMap((arg, i) => (flat[i] ? [arg as unknown[]] : []));
  for (const list of lists) for (const v of list) if (v instanceof FormulaError) return v;
  const isNumber = (v: unknown) => typeof v === 'number';
  if (single) return args.map((arg, i) => (flat[i] ? (arg as unknown[]).filter(isNumber) : arg));
  const length = lists[0]?.length ?? 0;
  if (lists.some((list) => list.length !== length)) return args; // the function answers ranges of two sizes
  const kept = (k: number) => lists.every((list) => isNumber(list[k]));
  return args.map((arg, i) => (flat[i] ? (arg as unknown[]).filter((_, k) => kept(k)) : arg));
}
