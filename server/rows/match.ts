/**
 * Filter matching over a whole column at once, through the column's index (column-index.ts), built once per
 * snapshot and mode: a substring search scans the column's distinct values (skipping the blocks of them that
 * cannot hold the needle, trigram-blocks.ts) and an exact one looks its value up; either way the matching
 * values give their rows. The result is the matching rows, ascending.
 */
import { OwnerCache } from '../lib/owner-cache.ts';
import { runNow, STEP_MASK, type Steps } from '../lib/steps.ts';
import type { CellValue } from '../sources/source.ts';
import { foldText } from './collation.ts';
import {
  type ColumnIndex,
  columnIndexSteps,
  findValue,
  rowsOfValues,
  SEP,
  valueAt,
  valueText,
} from './column-index.ts';
import { candidateRanges } from './trigram-blocks.ts';

/** Returns the value of a cell as the API returns it in `mode` (typed value, or displayed text / null). */
export type CellReader = (row: number, col: number) => CellValue;

const caches = {
  exact: new OwnerCache<object, number, ColumnIndex>(),
  folded: new OwnerCache<object, number, ColumnIndex>(),
};

/** The string a search matches against: numbers via String(n), booleans true/false, empty as ''. */
export function stringForm(v: CellValue): string {
  if (v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

export interface MatchSpec {
  /** Identity of the snapshot array the reader reads (typed or formatted): the cache key. */
  owner: object;
  rowCount: number;
  col: number;
  read: CellReader;
  /** Exact (the whole value, as it is) or a substring ignoring case and accents (collation.ts). */
  exact: boolean;
  value: string;
}

const NONE = new Uint32Array(0);

function* exactIndex(spec: Omit<MatchSpec, 'exact' | 'value'>): Steps<ColumnIndex> {
  const { owner, rowCount, col, read } = spec;
  const cached = caches.exact.peek(owner, col);
  if (cached) return cached;
  const index = yield* columnIndexSteps(rowCount, (row) => stringForm(read(row, col)));
  return caches.exact.get(owner, col, () => index);
}

/**
 * The rows whose value's text form is one of `forms`, ascending, through the column's exact index (a hash look-up
 * per form once it is built): `where`'s `=` and `in`, which then keep the rows of the literal's type.
 */
export function* rowsWithForms(
  spec: Omit<MatchSpec, 'exact' | 'value'>,
  forms: readonly string[],
): Steps<Uint32Array> {
  if (spec.rowCount === 0) return NONE;
  const index = yield* exactIndex(spec);
  const ids = new Set<number>();
  for (const form of forms) {
    const v = findValue(index, form);
    if (v >= 0) ids.add(v);
  }
  return ids.size === 0 ? NONE : rowsOfValues(index, Uint32Array.from(ids).sort());
}

/**
 * The folded index. A column whose every value folds to itself (numbers, lower-case codes and addresses) has
 * one index for both kinds of search: it is built once and kept once.
 */
function* foldedIndex(spec: Omit<MatchSpec, 'exact' | 'value'>): Steps<ColumnIndex> {
  const { owner, rowCount, col, read } = spec;
  const cached = caches.folded.peek(owner, col);
  if (cached) return cached;
  const exact = caches.exact.peek(owner, col);
  if (exact && foldsToItself(exact)) return caches.folded.get(owner, col, () => exact);
  let same = true;
  const index = yield* columnIndexSteps(rowCount, (row) => {
    const s = stringForm(read(row, col));
    const folded = foldText(s);
    if (same && folded !== s) same = false;
    return folded;
  });
  if (same) caches.exact.get(owner, col, () => index);
  // Built by a step at a time, another request may have built it meanwhile: the one cached first is kept.
  return caches.folded.get(owner, col, () => index);
}

/** Whether folding leaves every value as it is (it stops at the first one it changes). */
function foldsToItself(index: ColumnIndex): boolean {
  for (let v = 0; v < index.valueCount; v++) {
    const s = valueText(index, v);
    if (foldText(s) !== s) return false;
  }
  return true;
}

/** Ids of the values containing `needle`, ascending. */
function valuesContaining(index: ColumnIndex, needle: string): Uint32Array {
  const found: number[] = [];
  // Every value holds the empty text (a needle of accents alone folds to it); the scan below would not advance.
  if (needle === '') return Uint32Array.from({ length: index.valueCount }, (_, v) => v);
  if (needle.includes(SEP)) {
    // Could straddle two values in the joined text: check value by value instead.
    for (let v = 0; v < index.valueCount; v++) if (valueText(index, v).includes(needle)) found.push(v);
    return Uint32Array.from(found);
  }
  const { text, starts } = index;
  candidateRanges(index.blocks, text.length, needle, (start, end) => {
    // Only what can hold an occurrence beginning before `end` (a slice shares the text's characters).
    const hay = text.slice(start, Math.min(text.length, end + needle.length - 1));
    for (let from = 0; ; ) {
      const at = hay.indexOf(needle, from);
      if (at < 0) break;
      const v = valueAt(index, start + at);
      if (found.length === 0 || found[found.length - 1]! < v) found.push(v);
      from = starts[v + 1]! - start; // one hit per value is enough
    }
  });
  return Uint32Array.from(found);
}

/** The rows matching, ascending. The result may be shared: callers must not change it. */
export function matchRows(spec: MatchSpec): Uint32Array {
  return runNow(matchRowsSteps(spec));
}

/** `matchRows`, a step at a time (lib/steps.ts): a first search of a column builds its index paced. */
export function* matchRowsSteps(spec: MatchSpec): Steps<Uint32Array> {
  if (spec.rowCount === 0) return NONE;
  if (spec.exact) return yield* rowsWithForms(spec, [spec.value]);
  const index = yield* foldedIndex(spec);
  yield;
  return rowsOfValues(index, valuesContaining(index, foldText(spec.value)));
}

/**
 * The rows whose value, as text and folded as `search` folds it (empty cells as ''), passes `test`, ascending:
 * each distinct value of the column is tested once (`where`'s `starts with`, `ends with`).
 */
export function* rowsWhereFolded(
  spec: Omit<MatchSpec, 'exact' | 'value'>,
  test: (folded: string) => boolean,
): Steps<Uint32Array> {
  if (spec.rowCount === 0) return NONE;
  const index = yield* foldedIndex(spec);
  const found: number[] = [];
  for (let v = 0; v < index.valueCount; v++) {
    if ((v & STEP_MASK) === STEP_MASK) yield;
    if (test(valueText(index, v))) found.push(v);
  }
  return rowsOfValues(index, Uint32Array.from(found));
}
