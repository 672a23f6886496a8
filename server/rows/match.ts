/**
 * Filter matching over a whole column at once. Through the column's index (column-index.ts) once it is built
 * for the snapshot and mode: a substring search scans the column's distinct values (skipping the blocks of them
 * that cannot hold the needle, trigram-blocks.ts) and an exact one looks its value up; either way the matching
 * values give their rows. A long column's index is not built at its first search on a snapshot, which reads
 * the column's rows instead (column-scan.ts); the second scans too and starts building the index behind
 * (paced), and the searches after it is built use it. A snapshot searched once (a search after each write)
 * never pays for an index; at most MAX_BUILDS builds run at once. The result is the matching rows, ascending.
 */
import { OwnerCache } from '../lib/owner-cache.ts';
import { runPaced, STEP_MASK, type Steps } from '../lib/steps.ts';
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
import { foldedForm, scanRows, stringForm } from './column-scan.ts';
import { candidateRanges } from './trigram-blocks.ts';

export { stringForm };

/** Returns the value of a cell as the API returns it in `mode` (typed value, or displayed text / null). */
export type CellReader = (row: number, col: number) => CellValue;

const caches = {
  exact: new OwnerCache<object, number, ColumnIndex>(),
  folded: new OwnerCache<object, number, ColumnIndex>(),
};

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

type Kind = keyof typeof caches;
type ColumnSpec = Omit<MatchSpec, 'exact' | 'value'>;

/** Columns a search has scanned on a snapshot, and the indexes being built behind: per kind, owner and column. */
const scanned = {
  exact: new OwnerCache<object, number, true>(),
  folded: new OwnerCache<object, number, true>(),
};
const building = {
  exact: new OwnerCache<object, number, Promise<unknown>>(),
  folded: new OwnerCache<object, number, Promise<unknown>>(),
};

/**
 * Below this many rows a column's index is built at the first search: it costs about what a scan does (a few
 * milliseconds) and the searches after it are at once faster.
 */
export const SCAN_FIRST_ROWS = 4096;

/**
 * The column's index of `kind` if it is built (or the column is short: built now); otherwise null, and the
 * caller scans. The first ask of a long column on a snapshot only notes it; the second starts the index's paced
 * build, which later asks then use.
 */
function* builtIndex(kind: Kind, spec: ColumnSpec): Steps<ColumnIndex | null> {
  const { owner, col } = spec;
  const cached = caches[kind].peek(owner, col);
  if (cached) return cached;
  if (spec.rowCount < SCAN_FIRST_ROWS) return yield* kind === 'exact' ? exactIndex(spec) : foldedIndex(spec);
  if (scanned[kind].peek(owner, col) === undefined) {
    scanned[kind].get(owner, col, () => true);
    return null;
  }
  if (building[kind].peek(owner, col) === undefined) {
    const run = { stopped: false };
    const steps = kind === 'exact' ? exactIndex(spec) : foldedIndex(spec);
    // A build that fails or is stopped is not kept: a later search scans and may start it again.
    const built: Promise<unknown> = runPaced(stoppable(steps, run))
      .catch((): void => building[kind].forget(owner, col, built))
      .finally(() => running.delete(run));
    building[kind].get(owner, col, () => built);
    running.add(run);
    // The oldest build goes first: most likely its snapshot is gone (a write came), and only the build holds it.
    if (running.size > MAX_BUILDS) {
      const oldest = running.values().next().value as { stopped: boolean };
      oldest.stopped = true;
      running.delete(oldest);
    }
  }
  return null;
}

/**
 * Index builds running behind searches at most. A build holds its snapshot's rows until it ends, and a script
 * that writes and searches twice in a loop would start one per write: past this many, the oldest is stopped.
 */
const MAX_BUILDS = 2;
const running = new Set<{ stopped: boolean }>();

class BuildStopped extends Error {}

/** `steps`, ended by a throw at the first step after `run.stopped` is set. */
function* stoppable<T>(steps: Steps<T>, run: { stopped: boolean }): Steps<T> {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    if (run.stopped) throw new BuildStopped('an index build stopped for a newer one');
    yield;
  }
}

/** The build of the column's index started behind a search, if one was (tests and benchmarks wait for it). */
export function indexBuilding(exact: boolean, owner: object, col: number): Promise<unknown> | undefined {
  return building[exact ? 'exact' : 'folded'].peek(owner, col);
}

function* exactIndex(spec: ColumnSpec): Steps<ColumnIndex> {
  const { owner, rowCount, col, read } = spec;
  const cached = caches.exact.peek(owner, col);
  if (cached) return cached;
  const index = yield* columnIndexSteps(rowCount, (row) => stringForm(read(row, col)));
  return caches.exact.get(owner, col, () => index);
}

/**
 * The rows whose value's text form is one of `forms`, ascending, through the column's exact index (a hash look-up
 * per form) once it is built, else a scan: `where`'s `=` and `in`, which then keep the rows of the literal's type.
 */
export function* rowsWithForms(spec: ColumnSpec, forms: readonly string[]): Steps<Uint32Array> {
  if (spec.rowCount === 0) return NONE;
  const index = yield* builtIndex('exact', spec);
  if (index === null) {
    const wanted = new Set(forms);
    return yield* scanRows(spec.rowCount, spec.col, spec.read, stringForm, (s) => wanted.has(s));
  }
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
function* foldedIndex(spec: ColumnSpec): Steps<ColumnIndex> {
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

/**
 * The rows matching, ascending, a step at a time (lib/steps.ts): by the column's index, or by a scan before
 * it is built. The result may be shared: callers must not change it.
 */
export function* matchRowsSteps(spec: MatchSpec): Steps<Uint32Array> {
  if (spec.rowCount === 0) return NONE;
  if (spec.exact) return yield* rowsWithForms(spec, [spec.value]);
  const needle = foldText(spec.value);
  const index = yield* builtIndex('folded', spec);
  if (index === null)
    return yield* scanRows(spec.rowCount, spec.col, spec.read, foldedForm, (s) => s.includes(needle));
  yield;
  return rowsOfValues(index, valuesContaining(index, needle));
}

/**
 * The rows whose value, as text and folded as `search` folds it (empty cells as ''), passes `test`, ascending:
 * each distinct value of the column is tested once when it has an index, each row otherwise (`where`'s
 * `starts with`, `ends with`).
 */
export function* rowsWhereFolded(spec: ColumnSpec, test: (folded: string) => boolean): Steps<Uint32Array> {
  if (spec.rowCount === 0) return NONE;
  const index = yield* builtIndex('folded', spec);
  if (index === null) return yield* scanRows(spec.rowCount, spec.col, spec.read, foldedForm, test);
  const found: number[] = [];
  for (let v = 0; v < index.valueCount; v++) {
    if ((v & STEP_MASK) === STEP_MASK) yield;
    if (test(valueText(index, v))) found.push(v);
  }
  return rowsOfValues(index, Uint32Array.from(found));
}
