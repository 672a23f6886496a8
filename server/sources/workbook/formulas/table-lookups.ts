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
import { hasWildcard, wildcard, withoutEscapes } from './wildcard.ts';

interface Param {
  value: unknown;
  omitted?: boolean;
}
type Lookup = (lookup: Param, table: Param, index: Param, approximate?: Param) => unknown;

const fold = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);

/** Where `keys` hold `v` exactly, or -1. */
export function exactPosition(keys: readonly unknown[], v: string | number | boolean): number {
  if (typeof v !== 'string') return keys.indexOf(v);
  if (hasWildcard(v)) {
    const pattern = wildcard(v);
    return keys.findIndex((k) => typeof k === 'string' && pattern.matches(k));
  }
  const lower = withoutEscapes(v).toLowerCase();
  return keys.findIndex((k) => typeof k === 'string' && k.toLowerCase() === lower);
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
