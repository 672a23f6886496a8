/**
 * Lookups of one row's value in a whole range, answered from an index of the range made once per computation
 * (WorkbookEvaluator): `VLOOKUP(A2,Rates!A:B,2,FALSE)`, `MATCH(A2,Ids!A:A,0)`, `XLOOKUP(A2,...)`,
 * `COUNTIF(A:A,A2)` and `SUMIF(A:A,A2,B:B)` in every row of a tab read the range once, not once per row (which
 * is 10^10 reads at 100,000 rows). Each answer is the one the function itself gives, by its own equality (type
 * and case as it compares them, criteria.ts for COUNTIF and SUMIF, the first match, sums added in row order);
 * a call in any other form (a wildcard, an approximate match, a criterion with an operator, a blank or an error
 * looked up) goes to the function. A range is indexed at its second call, so one read once (a running count,
 * `COUNTIF($A$2:A2,A2)`) costs nothing more; and a call that cannot read its ranges (a cycle, a chain computed a
 * stretch at a time) goes to the function, which meets the same.
 */
import { type Criterion, equalityKey, readCriterion } from './criteria.ts';
import { ifsAnswer, ifsTallies, joinedKey } from './ifs-index.ts';
import type { FormulaInput, Point } from './parser.ts';
import { formulaLibrary, sizedLike } from './parser.ts';
import { xlookupResult } from './table-lookups.ts';

export interface RangeArg {
  sheet?: string;
  from: Point;
  to: Point;
}

export interface CellArg extends Point {
  sheet?: string;
}

/** How the evaluator reads a call's arguments, as it hands them to the function. */
export interface ArgumentReader {
  range(ref: RangeArg): FormulaInput[][];
  cell(ref: CellArg): FormulaInput;
}

/** Most cells read into indexes per computation (a 1,048,576-row lookup table of two columns is 2M). */
export const MAX_INDEXED_CELLS = 4_000_000;
/** Most distinct lookups counted per computation. */
const MAX_SEEN = 10_000;

type Key = string | number | boolean;
interface Index<T = Map<Key, number>> {
  positions: T;
  /** The ranges' values where the answer is read from them (VLOOKUP's table, XLOOKUP's results). */
  values: FormulaInput[][][];
}
type Build<T = Map<Key, number>> = (ranges: FormulaInput[][][]) => T;
type Lookup = (
  lookups: LookupIndexes,
  args: readonly unknown[],
  sheet: string,
) => { value: unknown } | undefined;

export class LookupIndexes {
  readonly #reader: ArgumentReader;
  readonly #seen = new Map<string, number>();
  readonly #indexes = new Map<string, Index<unknown>>();
  #cells = 0;

  constructor(reader: ArgumentReader) {
    this.#reader = reader;
  }

  /** The result of the call answered from an index, or undefined when the function is to compute it. */
  answer(name: string, args: readonly unknown[], sheet: string): { value: unknown } | undefined {
    const lookup = LOOKUPS[name.toUpperCase().replace(/^_XLFN\./, '')];
    if (!lookup) return undefined;
    try {
      const answered = lookup(this, args, sheet);
      return answered && { value: formulaLibrary().checkFunctionResult(answered.value) };
    } catch {
      return undefined; // an argument that cannot be read: the function meets the same, its own way
    }
  }

  /** A plain value looked up (a constant, or one cell's value); undefined for a blank, an error, a range. */
  value(arg: unknown): Key | undefined {
    const v = isCell(arg) ? this.#reader.cell(arg.ref) : arg;
    return isPlain(v) ? v : undefined;
  }

  /** The index `kind` of `ranges`, made at its second call; undefined before, or past the limits. */
  index<T>(kind: string, ranges: readonly RangeArg[], sheet: string, build: Build<T>): Index<T> | undefined {
    const key = `${kind}|${ranges.map((r) => rangeKey(r, sheet)).join('|')}`;
    const made = this.#indexes.get(key);
    if (made) return made as Index<T>;
    const calls = (this.#seen.get(key) ?? 0) + 1;
    if (calls === 1) {
      if (this.#seen.size < MAX_SEEN) this.#seen.set(key, calls);
      return undefined;
    }
    if (this.#cells >= MAX_INDEXED_CELLS) return undefined;
    const values = ranges.map((r) => this.#reader.range(r));
    const index = { positions: build(values), values };
    for (const rows of values) this.#cells += rows.length * (rows[0]?.length ?? 0);
    if (this.#cells <= MAX_INDEXED_CELLS) this.#indexes.set(key, index);
    return index;
  }
}

function rangeKey(ref: RangeArg, sheet: string): string {
  return `${(ref.sheet || sheet).toLowerCase()}!${ref.from.row},${ref.from.col}:${ref.to.row},${ref.to.col}`;
}

function isCell(arg: unknown): arg is { ref: CellArg } {
  const ref = (arg as { ref?: Partial<CellArg & RangeArg> } | null)?.ref;
  return typeof ref?.row === 'number' && typeof ref.col === 'number' && ref.from === undefined;
}

function rangeOf(arg: unknown): RangeArg | undefined {
  const ref = (arg as { ref?: Partial<RangeArg> } | null)?.ref;
  return ref?.from && ref.to ? (ref as RangeArg) : undefined;
}

const isPlain = (v: unknown): v is Key =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** Text compared without case, as MATCH (exact) and XLOOKUP compare it; other values as they are. */
const folded = (v: Key): Key => (typeof v === 'string' ? v.toLowerCase() : v);

/** The first row of each value folded in the first column: VLOOKUP's exact match (functions.ts). */
const firstColumn: Build = ([rows]) => {
  const positions = new Map<Key, number>();
  rows!.forEach((row, i) => {
    const v = row[0];
    if (isPlain(v) && !positions.has(folded(v))) positions.set(folded(v), i);
  });
  return positions;
};

/** The first place, row by row, of each value folded: MATCH's and XLOOKUP's exact match. */
const firstFolded: Build = ([rows]) => {
  const positions = new Map<Key, number>();
  let at = 0;
  for (const row of rows!)
    for (const v of row) {
      if (isPlain(v) && !positions.has(folded(v))) positions.set(folded(v), at);
      at++;
    }
  return positions;
};

/** How many cells match each equality criterion, by criteria.ts `equalityKey`: COUNTIF's `=`. */
const counts: Build = ([rows]) => {
  const positions = new Map<Key, number>();
  for (const row of rows!)
    for (const cell of row) {
      const key = equalityKey(cell);
      if (key !== undefined) positions.set(key, (positions.get(key) ?? 0) + 1);
    }
  return positions;
};

/**
 * The sum of the numbers beside the cells each equality criterion matches, added in row order as SUMIF adds,
 * or the first error beside one (which SUMIF gives).
 */
const sums: Build<Map<Key, FormulaInput>> = ([rows, toAdd]) => {
  const positions = new Map<Key, FormulaInput>();
  const { FormulaError } = formulaLibrary();
  rows!.forEach((row, r) => {
    const adding = toAdd![r]; // absent past the sheet's last row: blanks, as SUMIF reads them
    row.forEach((cell, c) => {
      const key = equalityKey(cell);
      const add = adding?.[c];
      const sum = key === undefined ? undefined : positions.get(key);
      if (key === undefined || sum instanceof FormulaError) return;
      if (add instanceof FormulaError) positions.set(key, add);
      else if (typeof add === 'number') positions.set(key, ((sum as number | undefined) ?? 0) + add);
    });
  });
  return positions;
};

/** The key of the cells a criterion matches when it is an equality an index answers (criteria.ts); else undefined. */
function equalityCriterion(lookups: LookupIndexes, arg: unknown): Key | undefined {
  const v = lookups.value(arg);
  if (v === undefined) return undefined;
  const criterion = readCriterion(v);
  return criterion instanceof formulaLibrary().FormulaError ? undefined : (criterion as Criterion).key;
}

/** Text a wildcard or a `~` escape makes a pattern of: left to the function (table-lookups.ts). */
const hasWildcard = (v: Key) => typeof v === 'string' && /[*?~]/.test(v);

/** The numbers of a range in ascending order, or the first error in it (which RANK gives back). */
const sortedNumbers: Build<Float64Array | FormulaInput> = ([rows]) => {
  const numbers: number[] = [];
  for (const row of rows!)
    for (const v of row) {
      if (v instanceof formulaLibrary().FormulaError) return v;
      if (typeof v === 'number') numbers.push(v);
    }
  return Float64Array.from(numbers).sort();
};

/** The first place in `sorted` holding a number above `n` (or at or above it, `orEqual`). */
function above(sorted: Float64Array, n: number, orEqual: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! > n || (orEqual && sorted[mid] === n)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** RANK(number, ref, [order]), RANK.EQ: functions.ts `rankEq`, by binary search. */
const rank: Lookup = (lookups, args, sheet) => {
  const [numberArg, refArg, order = null] = args;
  const ref = rangeOf(refArg);
  if (args.length < 2 || args.length > 3 || !ref || !(order === null || isPlain(order))) return undefined;
  const n = lookups.value(numberArg);
  if (typeof n !== 'number') return undefined;
  const sorted = lookups.index('sorted-numbers', [ref], sheet, sortedNumbers)?.positions;
  if (!(sorted instanceof Float64Array)) return undefined; // not indexed yet, or an error for the function to give
  const from = above(sorted, n, true);
  if (from === sorted.length || sorted[from] !== n) return { value: formulaLibrary().FormulaError.NA };
  return { value: order ? from + 1 : sorted.length - above(sorted, n, false) + 1 };
};

/**
 * COUNTIFS (`withValues` false) or SUMIFS, AVERAGEIFS, MAXIFS, MINIFS: ranges, and criteria that are all
 * equalities an index answers (ifs-index.ts).
 */
function ifs(name: string, withValues: boolean): Lookup {
  return (lookups, args, sheet) => {
    const ranges: RangeArg[] = [];
    const keys: Key[] = [];
    const valuesRange = withValues ? rangeOf(args[0]) : undefined;
    if (withValues && !valuesRange) return undefined;
    if (valuesRange) ranges.push(valuesRange);
    const pairs = withValues ? args.slice(1) : args;
    if (pairs.length === 0 || pairs.length % 2 !== 0) return undefined;
    for (let i = 0; i < pairs.length; i += 2) {
      const range = rangeOf(pairs[i]);
      const key = equalityCriterion(lookups, pairs[i + 1]);
      if (!range || key === undefined) return undefined;
      ranges.push(range);
      keys.push(key);
    }
    const index = lookups.index(withValues ? 'ifs+values' : 'ifs', ranges, sheet, ifsTallies(withValues));
    return index && { value: ifsAnswer(name, index.positions.get(joinedKey(keys))) };
  };
}

const LOOKUPS: Record<string, Lookup> = {
  COUNTIFS: ifs('COUNTIFS', false),
  SUMIFS: ifs('SUMIFS', true),
  AVERAGEIFS: ifs('AVERAGEIFS', true),
  MAXIFS: ifs('MAXIFS', true),
  MINIFS: ifs('MINIFS', true),
  RANK: rank,
  'RANK.EQ': rank,
  /** VLOOKUP(value, table, column, FALSE or 0). */
  VLOOKUP: (lookups, args, sheet) => {
    const [look, tableArg, column, approximate] = args;
    const table = rangeOf(tableArg);
    if (args.length !== 4 || !table || !(approximate === false || approximate === 0)) return undefined;
    if (typeof column !== 'number' || !Number.isInteger(column) || column < 1) return undefined;
    const v = lookups.value(look);
    if (v === undefined || hasWildcard(v)) return undefined;
    const index = lookups.index('first-column', [table], sheet, firstColumn);
    const rows = index?.values[0];
    if (!index || !rows || rows.length === 0) return undefined;
    const { NA, REF } = formulaLibrary().FormulaError;
    if (rows[0]![column - 1] === undefined) return { value: REF };
    const at = index.positions.get(folded(v));
    return { value: at === undefined ? NA : (rows[at]![column - 1] ?? 0) };
  },

  /** MATCH(value, range, 0): text with a wildcard or `~` goes to the function (functions.ts `excelMatch`). */
  MATCH: (lookups, args, sheet) => {
    const range = rangeOf(args[1]);
    if (args.length !== 3 || !range || args[2] !== 0) return undefined;
    const v = lookups.value(args[0]);
    if (v === undefined || v === '' || v === false) return undefined;
    if (hasWildcard(v)) return undefined;
    const index = lookups.index('first-folded', [range], sheet, firstFolded);
    if (!index) return undefined;
    const at = index.positions.get(folded(v));
    return { value: at === undefined ? formulaLibrary().FormulaError.NA : at + 1 };
  },

  /** XLOOKUP(value, range, results, [if not found]): table-lookups.ts `xlookup`, exact, first to last. */
  XLOOKUP: (lookups, args, sheet) => {
    const [look, inArg, resultsArg, notFound] = args;
    const range = rangeOf(inArg);
    const results = rangeOf(resultsArg);
    if (args.length < 3 || args.length > 4 || !range || !results) return undefined;
    if (args.length === 4 && notFound !== null && !isPlain(notFound)) return undefined;
    const v = lookups.value(look);
    if (v === undefined) return undefined;
    const index = lookups.index('first-folded+results', [range, results], sheet, firstFolded);
    if (!index) return undefined;
    const [keys, resultRows] = index.values as [FormulaInput[][], FormulaInput[][]];
    const vertical = (keys[0]?.length ?? 0) === 1;
    const matching = vertical ? resultRows.length === keys.length : resultRows[0]?.length === keys[0]?.length;
    if ((keys.length > 1 && !vertical) || !matching) return undefined; // #VALUE!, the function's to give
    const at = index.positions.get(folded(v));
    if (at !== undefined) return { value: xlookupResult(resultRows, vertical, at) };
    return { value: args.length === 4 && notFound !== null ? notFound : formulaLibrary().FormulaError.NA };
  },

  /** COUNTIF(range, value). */
  COUNTIF: (lookups, args, sheet) => {
    const range = rangeOf(args[0]);
    if (args.length !== 2 || !range) return undefined;
    const v = equalityCriterion(lookups, args[1]);
    if (v === undefined) return undefined;
    const index = lookups.index('counts', [range], sheet, counts);
    return index && { value: index.positions.get(v) ?? 0 };
  },

  /** SUMIF(range, value, [sums]): the sums' range taken as large as the first, from its top left, as SUMIF does. */
  SUMIF: (lookups, args, sheet) => {
    const range = rangeOf(args[0]);
    if (args.length < 2 || args.length > 3 || !range) return undefined;
    const sized = rangeOf(sizedLike(args[0], args[2] ?? null)); // as the function sizes them (parser.ts)
    if (!sized) return undefined;
    const v = equalityCriterion(lookups, args[1]);
    if (v === undefined) return undefined;
    const index = lookups.index('sums', [range, sized], sheet, sums);
    return index && { value: index.positions.get(v) ?? 0 };
  },
};
