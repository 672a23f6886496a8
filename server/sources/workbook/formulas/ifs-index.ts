/**
 * COUNTIFS, SUMIFS, AVERAGEIFS, MAXIFS and MINIFS whose criteria are all equalities (`SUMIFS(C:C,A:A,A2,B:B,B2)`
 * in every row, a summary by customer and month) answered from one pass over their ranges: each place's
 * criteria keys (criteria.ts `equalityKey`) joined into one key, and per key what criteria-functions.ts tallies
 * there, in the same row order (so sums add up to the same last digit, and the first error is the same one).
 * Per row, the functions read every range again: 10,000 rows were 10^8 cells tested.
 */
import { equalityKey } from './criteria.ts';
import { type FormulaInput, formulaLibrary } from './parser.ts';
import { cellOf, sameExtent } from './range-extent.ts';

type Key = string | number | boolean;

/** What the cells whose criteria keys are one key add up to. */
interface KeyTally {
  /** Places matched (COUNTIFS's answer). */
  matched: number;
  numbers: number;
  sum: number;
  max: number;
  min: number;
  /** The first error among the values to add, which the functions give back. */
  error?: FormulaInput;
}

/** One key for several criteria keys, each kept apart by its kind and length (text may hold any character). */
export function joinedKey(keys: readonly Key[]): string {
  let joined = '';
  for (const k of keys) {
    const text = String(k);
    joined += `${typeof k === 'string' ? 's' : typeof k === 'number' ? 'n' : 'b'}${text.length}:${text}`;
  }
  return joined;
}

/**
 * The tallies by joined key of `ranges`: the values to add first when `withValues`, then each criteria range.
 * Ranges of unequal shapes (as written: range-extent.ts) throw: the function answers those (#VALUE!).
 */
export function ifsTallies(withValues: boolean) {
  return (ranges: FormulaInput[][][]): Map<string, KeyTally> => {
    if (ranges.some((g) => !sameExtent(g, ranges[0]!))) throw new RangeError('shapes');
    // Past what was read of a range its cells are blank, which no equality matches (range-extent.ts).
    const rows = Math.max(...ranges.map((g) => g.length));
    const columns = Math.max(...ranges.map((g) => g[0]?.length ?? 0));
    const criteria = withValues ? ranges.slice(1) : ranges;
    const values = withValues ? ranges[0]! : null;
    const tallies = new Map<string, KeyTally>();
    const keys: Key[] = new Array(criteria.length);
    const { FormulaError } = formulaLibrary();
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < columns; c++) {
        if (!keysAt(criteria, r, c, keys)) continue;
        const joined = joinedKey(keys);
        let tally = tallies.get(joined);
        if (!tally) {
          tally = {
            matched: 0,
            numbers: 0,
            sum: 0,
            max: Number.NEGATIVE_INFINITY,
            min: Number.POSITIVE_INFINITY,
          };
          tallies.set(joined, tally);
        }
        tally.matched++;
        const v = values ? cellOf(values, r, c) : undefined;
        if (tally.error !== undefined || typeof v !== 'number') {
          if (v instanceof FormulaError && tally.error === undefined) tally.error = v;
          continue;
        }
        tally.numbers++;
        tally.sum += v;
        if (v > tally.max) tally.max = v;
        if (v < tally.min) tally.min = v;
      }
    return tallies;
  };
}

/** Each criteria range's key at (r, c) into `keys`; false where a cell has none (no equality matches it). */
function keysAt(criteria: readonly FormulaInput[][][], r: number, c: number, keys: Key[]): boolean {
  for (let i = 0; i < criteria.length; i++) {
    const key = equalityKey(cellOf(criteria[i]!, r, c));
    if (key === undefined) return false;
    keys[i] = key;
  }
  return true;
}

/** The function's answer from the tally of its criteria's key (none: nothing matched). */
export function ifsAnswer(name: string, tally: KeyTally | undefined): unknown {
  if (name === 'COUNTIFS') return tally?.matched ?? 0;
  if (tally?.error !== undefined) return tally.error;
  const numbers = tally?.numbers ?? 0;
  if (name === 'SUMIFS') return tally?.sum ?? 0;
  if (name === 'AVERAGEIFS') return numbers === 0 ? formulaLibrary().FormulaError.DIV0 : tally!.sum / numbers;
  if (name === 'MAXIFS') return numbers === 0 ? 0 : tally!.max;
  return numbers === 0 ? 0 : tally!.min; // MINIFS
}
