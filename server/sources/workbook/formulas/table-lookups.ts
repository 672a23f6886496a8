/**
 * VLOOKUP and HLOOKUP as Excel looks up. fast-formula-parser's compared text with regard to case in an exact
 * match, and its approximate match answered the key instead of the table's cell past the last key
 * (`VLOOKUP(99,A:B,2,TRUE)` gave A's last number, not B's), the row before a skipped one after it, and the key
 * of a one-row table even when above the value looked up. Here:
 * - an exact match (`FALSE` or `0`) finds text without regard to case, with wildcards (wildcard.ts), and other
 *   values by type and value;
 * - an approximate match (the default) takes the keys as sorted ascending, as Excel does: the last key of the
 *   value's kind (number, text without regard to case, logical) not above it, before the first one above it;
 * - a blank cell found gives 0.
 * A call of another form (a blank or an error looked up, a column or row number that is not a whole number, a
 * table that is not a range) is the library's.
 */
import { formulaLibrary } from './parser.ts';
import { textMatcher } from './wildcard.ts';

interface Param {
  value: unknown;
  omitted?: boolean;
}
type Lookup = (lookup: Param, table: Param, index: Param, approximate?: Param) => unknown;

const fold = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);

/** Where `keys` hold `v` exactly, or -1. */
export function exactPosition(keys: readonly unknown[], v: string | number | boolean): number {
  return typeof v === 'string' ? keys.findIndex(textMatcher(v)) : keys.indexOf(v);
}

/** The last key of `v`'s kind not above it, before the first key of that kind above it; -1 when none. */
export function approximatePosition(keys: readonly unknown[], v: string | number | boolean): number {
  const kind = typeof v;
  const key = fold(v) as string | number | boolean;
  let found = -1;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (typeof k !== kind) continue;
    if ((fold(k) as typeof key) > key) break;
    found = i;
  }
  return found;
}

const isPlain = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** VLOOKUP (`vertical`) or HLOOKUP, the library's `library` for the forms it is left. */
export function tableLookup(vertical: boolean, library: Lookup): Lookup {
  const found: Lookup = (lookup, table, index, approximate) => {
    const grid = table.value as unknown[][];
    const n = index.value;
    const v = lookup.value;
    if (!Array.isArray(grid) || grid.length === 0 || typeof n !== 'number' || !Number.isInteger(n) || n < 1)
      return library(lookup, table, index, approximate);
    if (!isPlain(v)) return library(lookup, table, index, approximate);
    const { REF, NA } = formulaLibrary().FormulaError;
    if ((vertical ? grid[0]![n - 1] : grid[n - 1]) === undefined) return REF;
    const keys = vertical ? grid.map((row) => row[0]) : grid[0]!;
    const exact =
      approximate !== undefined && !approximate.omitted && [false, 0].includes(approximate.value as never);
    const at = exact ? exactPosition(keys, v) : approximatePosition(keys, v);
    if (at < 0) return NA;
    return vertical ? grid[at]![n - 1] : grid[n - 1]![at];
  };
  return (lookup, table, index, approximate) => found(lookup, table, index, approximate) ?? 0;
}

const given = (p: Param | undefined): p is Param => p !== undefined && !p.omitted;
const gridOf = (v: unknown): unknown[][] => (Array.isArray(v) ? (v as unknown[][]) : [[v]]);
const same = (a: unknown, b: unknown) =>
  typeof a === 'string' && typeof b === 'string' ? a.toLowerCase() === b.toLowerCase() : a === b;

/**
 * Where XLOOKUP finds `v` in `keys`, searching from the first (`forward`) or from the last: exactly (match mode
 * 0), with wildcards (2), or else the next smaller (-1) or larger (1) key of `v`'s kind (text without regard to
 * case); the first found in the search's order among equal ones. -1 when none.
 */
export function xlookupPosition(
  keys: readonly unknown[],
  v: unknown,
  mode: number,
  forward: boolean,
): number {
  const order = (i: number) => (forward ? i : keys.length - 1 - i);
  const matches = mode === 2 && typeof v === 'string' ? textMatcher(v) : (k: unknown) => same(k, v);
  for (let i = 0; i < keys.length; i++) if (matches(keys[order(i)])) return order(i);
  if (mode !== -1 && mode !== 1) return -1;
  // Keys of `v`'s kind only, compared folded: number with number, text with text, logical with logical.
  const key = fold(v) as string;
  const folded = (i: number) => fold(keys[i]) as string;
  let best = -1;
  for (let i = 0; i < keys.length; i++) {
    const at = order(i);
    if (typeof keys[at] !== typeof v) continue;
    const k = folded(at);
    const beyond = mode === -1 ? k < key : k > key;
    if (beyond && (best < 0 || (mode === -1 ? k > folded(best) : k < folded(best)))) best = at;
  }
  return best;
}

/**
 * What XLOOKUP answers for the key at `at`: the row of `results` there for a lookup down a column (`vertical`),
 * the column for one along a row; a blank cell 0; one cell as itself, several as the array Excel spills.
 */
export function xlookupResult(
  results: readonly (readonly unknown[])[],
  vertical: boolean,
  at: number,
): unknown {
  const cells = (vertical ? (results[at] ?? []) : results.map((row) => row[at])).map((v) => v ?? 0);
  if (cells.length === 1) return cells[0];
  return vertical ? [cells] : cells.map((v) => [v]);
}

/**
 * XLOOKUP(value, lookup range, return range, [if not found], [match mode], [search mode]). The lookup range is
 * one row or one column, and the return range as tall (or as wide): #VALUE! otherwise. A binary search mode (2,
 * -2) searches as 1 and -1 do, which on a sorted range finds the same.
 */
export function xlookup(
  value: Param,
  lookIn: Param,
  returns: Param,
  notFound?: Param,
  matchMode?: Param,
  searchMode?: Param,
): unknown {
  const { NA, VALUE } = formulaLibrary().FormulaError;
  const v = value.value ?? '';
  if (v instanceof formulaLibrary().FormulaError) return v;
  const keysGrid = gridOf(lookIn.value);
  const rows = keysGrid.length;
  const columns = keysGrid[0]?.length ?? 0;
  const results = gridOf(returns.value);
  const vertical = columns === 1;
  if (rows > 1 && columns > 1) return VALUE;
  if (vertical ? results.length !== rows : (results[0]?.length ?? 0) !== columns) return VALUE;
  const mode = given(matchMode) ? Math.trunc(Number(matchMode.value)) : 0;
  const search = given(searchMode) ? Math.trunc(Number(searchMode.value)) : 1;
  if (![0, -1, 1, 2].includes(mode) || ![1, -1, 2, -2].includes(search)) return VALUE;
  const keys = vertical ? keysGrid.map((row) => row[0]) : keysGrid[0]!;
  const at = xlookupPosition(keys, v, mode, search > 0);
  if (at < 0) return given(notFound) ? notFound.value : NA;
  return xlookupResult(results, vertical, at);
}
