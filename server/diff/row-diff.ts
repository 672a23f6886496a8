/**
 * Row diff of two versions of one tab: aligns rows by content, not by position, so deleting row 3 of 1,000 is
 * one deletion and not 997 updates (docs/api.md, "Events"). Pure, no I/O. The header is the caller's business: only the
 * data rows are compared.
 *
 * Row equality (lib/row-equality.ts): two rows are equal when every cell is equal, a shorter row counting as
 * padded with null (so `[1, 'a']` equals `[1, 'a', null]`; an added empty column changes no row). Cells compare
 * with `===`, except that NaN equals NaN (and undefined, a missing cell, equals null).
 *
 * Algorithm:
 * 1. Strip the common prefix and suffix (cell by cell, no hashing): most edits end here.
 * 2. Give each row of the middle an integer id by content: a 32-bit hash of the cells picks the slot of an
 *    open-addressing table and rows with the same hash are compared exactly, so hash collisions never merge rows.
 * 3. Rows whose content occurs in only one of the two tabs can never be matched: they are set aside (they are
 *    always changes) and Myers' O(ND) diff (linear-space form) runs over the ids of the remaining rows. This keeps
 *    the longest common subsequence exact while making D count only rows whose content moved or whose duplicates
 *    changed, so the typical edit (cells changed, rows inserted or deleted) and "every row rewritten" cost O(N).
 * 4. Each hunk between two matched rows, of k old and m new rows, gives min(k, m) updates pairing them in order
 *    (the hunk's i-th old row with its i-th new row), then its remaining k - m deletions or m - k insertions.
 * 5. When that D exceeds `maxCost` (rows shuffled or sorted), the middle falls back to a positional diff,
 *    O(N): the i-th old row pairs with the i-th new row (an update when they differ, nothing when equal), and the
 *    longer side's extra tail rows are deletions or insertions.
 *
 * Consequences: a moved row (even to the adjacent position) is one deletion at its old index plus one insertion at
 * its new index, never two updates, unless the Myers search was abandoned (then rows are compared by position).
 * Deleting one of several identical adjacent rows is one deletion, reported at the last row of that run.
 *
 * Order of the changes: one forward walk over both tabs at once. Hunks come top to bottom; within a hunk its
 * updates come first (in order), then its deletions or its insertions (in order). So the deletions' old indices
 * increase, the updates' and insertions' new indices increase, and each change's old and new positions are at or
 * after those of the change before it. The property tests replay diffs in exactly this order.
 */

import { rowsEqual } from '../lib/row-equality.ts';
import { sharedRows } from '../lib/shared-rows.ts';
import { runNow, runPaced, STEP_MASK, type Steps } from '../lib/steps.ts';
import type { CellValue } from '../sources/source.ts';
import { lcsMatches } from './myers.ts';

export interface RowChange {
  kind: 'inserted' | 'updated' | 'deleted';
  /** 1-based API row number: for inserted/updated the row's index in the NEW tab; for deleted its index in the OLD tab. */
  row_index: number;
  /** Old row values (null for inserted): the old tab's row array itself, not a copy. */
  before: CellValue[] | null;
  /** New row values (null for deleted): the new tab's row array itself, not a copy. */
  after: CellValue[] | null;
}

export interface DiffOptions {
  /**
   * Above this many edit-script operations (insertions + deletions found by the Myers search, not counting rows
   * whose content exists in only one tab, which are always changes and cost nothing to find), fall back to the
   * positional diff. The search costs about maxCost² / 2 steps before it gives up: at the default 5,000 about
   * 65 ms for 100,000 rows on a slow 2-core box (150 ms when the rows repeat a lot), 1 s at 20,000.
   */
  maxCost?: number;
}

export const DEFAULT_MAX_COST = 5_000;

/** Diff two versions of a tab's data rows; see the module comment for equality, algorithm and order. */
export function diffRows(
  oldRows: readonly CellValue[][],
  newRows: readonly CellValue[][],
  options: DiffOptions = {},
): RowChange[] {
  return runNow(diffSteps(oldRows, newRows, options));
}

/**
 * `diffRows` run paced (lib/steps.ts): an edit in a tab of a million rows compares them all for its common prefix
 * and suffix (about 150 ms in one piece), and the service answers meanwhile.
 */
export function diffRowsPaced(
  oldRows: readonly CellValue[][],
  newRows: readonly CellValue[][],
  options: DiffOptions = {},
): Promise<RowChange[]> {
  return runPaced(diffSteps(oldRows, newRows, options));
}

/** The diff as steps: the common prefix and suffix yield every STEP_ROWS rows; the middle runs as one step. */
export function* diffSteps(
  oldRows: readonly CellValue[][],
  newRows: readonly CellValue[][],
  options: DiffOptions = {},
): Steps<RowChange[]> {
  const n = oldRows.length;
  const m = newRows.length;
  // A write's new version shares most of its row arrays with the old one: rows its writer noted as shared are
  // not compared (lib/shared-rows.ts), and the same object is equal without a call.
  const shared = sharedRows(oldRows, newRows);
  let start = shared.head;
  const common = Math.min(n, m);
  while (start < common) {
    const a = oldRows[start]!;
    const b = newRows[start]!;
    if (a !== b && !rowsEqual(a, b)) break;
    if ((start & STEP_MASK) === STEP_MASK) yield;
    start++;
  }
  // The noted tail is within what the prefix left: sharedRows keeps head + tail within the shorter side.
  const tail = Math.min(shared.tail, common - start);
  let endOld = n - tail;
  let endNew = m - tail;
  while (endOld > start && endNew > start) {
    const a = oldRows[endOld - 1]!;
    const b = newRows[endNew - 1]!;
    if (a !== b && !rowsEqual(a, b)) break;
    if ((endOld & STEP_MASK) === STEP_MASK) yield;
    endOld--;
    endNew--;
  }
  return diffMiddle(oldRows, newRows, start, endOld, endNew, options);
}

/** The changes between `start` and the ends, the rows before and after them being equal. */
function diffMiddle(
  oldRows: readonly CellValue[][],
  newRows: readonly CellValue[][],
  start: number,
  endOld: number,
  endNew: number,
  options: DiffOptions,
): RowChange[] {
  const maxCost = options.maxCost ?? DEFAULT_MAX_COST;
  const changes: RowChange[] = [];
  if (start === endOld || start === endNew) {
    hunk(oldRows, newRows, start, endOld, start, endNew, changes);
    return changes;
  }

  // Ids of the middle rows by content: 0 .. oldIdCount-1 are contents seen in the old middle.
  const interner = new RowInterner(endOld - start + endNew - start);
  const oldIds = new Int32Array(endOld - start);
  for (let i = start; i < endOld; i++) oldIds[i - start] = interner.id(oldRows[i]!);
  const oldIdCount = interner.size;
  const newIds = new Int32Array(endNew - start);
  for (let j = start; j < endNew; j++) newIds[j - start] = interner.id(newRows[j]!);

  // Keep only the rows whose content occurs in both middles, remembering where they came from.
  const inNew = new Uint8Array(oldIdCount);
  let keptNew = 0;
  for (let j = 0; j < newIds.length; j++) {
    const id = newIds[j]!;
    if (id < oldIdCount) {
      inNew[id] = 1;
      keptNew++;
    }
  }
  let keptOld = 0;
  for (let i = 0; i < oldIds.length; i++) if (inNew[oldIds[i]!] === 1) keptOld++;
  const seqOld = new Int32Array(keptOld);
  const posOld = new Int32Array(keptOld);
  for (let i = 0, p = 0; i < oldIds.length; i++) {
    const id = oldIds[i]!;
    if (inNew[id] === 1) {
      seqOld[p] = id;
      posOld[p++] = start + i;
    }
  }
  const seqNew = new Int32Array(keptNew);
  const posNew = new Int32Array(keptNew);
  for (let j = 0, p = 0; j < newIds.length; j++) {
    const id = newIds[j]!;
    if (id < oldIdCount) {
      seqNew[p] = id;
      posNew[p++] = start + j;
    }
  }

  const matches = lcsMatches(seqOld, seqNew, maxCost);
  if (!matches) {
    positional(oldRows, newRows, oldIds, newIds, start, endOld, endNew, changes);
    return changes;
  }
  let i = start;
  let j = start;
  for (let p = 0; p < matches.count; p++) {
    const oi = posOld[matches.ia[p]!]!;
    const nj = posNew[matches.ib[p]!]!;
    hunk(oldRows, newRows, i, oi, j, nj, changes);
    i = oi + 1;
    j = nj + 1;
  }
  hunk(oldRows, newRows, i, endOld, j, endNew, changes);
  return changes;
}

/** Emits the changes of old rows [i0, i1) replaced by new rows [j0, j1): paired updates, then the rest. */
function hunk(
  oldRows: readonly CellValue[][],
  newRows: readonly CellValue[][],
  i0: number,
  i1: number,
  j0: number,
  j1: number,
  out: RowChange[],
): void {
  const paired = Math.min(i1 - i0, j1 - j0);
  for (let t = 0; t < paired; t++) {
    out.push({ kind: 'updated', row_index: j0 + t + 1, before: oldRows[i0 + t]!, after: newRows[j0 + t]! });
  }
  for (let i = i0 + paired; i < i1; i++) {
    out.push({ kind: 'deleted', row_index: i + 1, before: oldRows[i]!, after: null });
  }
  for (let j = j0 + paired; j < j1; j++) {
    out.push({ kind: 'inserted', row_index: j + 1, before: null, after: newRows[j]! });
  }
}

/** The fallback: old row start+t against new row start+t; equal rows are skipped. */
function positional(
  oldRows: readonly CellValue[][],
  newRows: readonly CellValue[][],
  oldIds: Int32Array,
  newIds: Int32Array,
  start: number,
  endOld: number,
  endNew: number,
  out: RowChange[],
): void {
  const paired = Math.min(endOld, endNew) - start;
  for (let t = 0; t < paired; t++) {
    if (oldIds[t] !== newIds[t]) {
      out.push({
        kind: 'updated',
        row_index: start + t + 1,
        before: oldRows[start + t]!,
        after: newRows[start + t]!,
      });
    }
  }
  hunk(oldRows, newRows, start + paired, endOld, start + paired, endNew, out);
}

export { rowsEqual };

const f64 = new Float64Array(1);
const f64Words = new Int32Array(f64.buffer);

/** FNV-1a style step. */
function mix(h: number, v: number): number {
  return Math.imul(h ^ v, 0x01000193);
}

/**
 * A 32-bit hash of a row's content, consistent with `rowsEqual`: trailing empty cells are ignored, 0 and -0 hash
 * alike, every NaN alike. Different rows may share a hash; `RowInterner` compares rows exactly on a hash hit.
 */
export function rowHash(row: readonly CellValue[]): number {
  let end = row.length;
  while (end > 0 && row[end - 1] == null) end--;
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < end; i++) {
    const v = row[i];
    if (typeof v === 'string') {
      h = mix(h, 0x73);
      for (let c = 0; c < v.length; c++) h = mix(h, v.charCodeAt(c));
      h = mix(h, v.length);
    } else if (typeof v === 'number') {
      if ((v | 0) === v) h = mix(mix(h, 0x64), v);
      else if (Number.isNaN(v)) h = mix(h, 0x4e);
      else {
        f64[0] = v;
        h = mix(mix(mix(h, 0x65), f64Words[0]!), f64Words[1]!);
      }
    } else if (v === true) h = mix(h, 0x74);
    else if (v === false) h = mix(h, 0x66);
    else h = mix(h, 0x6e);
  }
  // Final avalanche (murmur3 fmix32) so the low bits index the table well.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * Gives each distinct row content a small integer id (0, 1, 2, ... in order of first sight). An open-addressing
 * table keyed by `rowHash`; on a hash hit the rows are compared exactly, so colliding contents get different ids.
 */
class RowInterner {
  size = 0;
  readonly #mask: number;
  /** Slot -> id + 1 (0 = empty). */
  readonly #slots: Int32Array;
  readonly #hashes: Int32Array;
  readonly #rows: (readonly CellValue[])[] = [];

  constructor(capacity: number) {
    let tableSize = 16;
    while (tableSize < capacity * 2) tableSize *= 2;
    this.#mask = tableSize - 1;
    this.#slots = new Int32Array(tableSize);
    this.#hashes = new Int32Array(Math.max(capacity, 1));
  }

  /** The id of this row's content; at most `capacity` distinct contents. */
  id(row: readonly CellValue[]): number {
    const h = rowHash(row);
    const slots = this.#slots;
    let slot = h & this.#mask;
    for (;;) {
      const entry = slots[slot]!;
      if (entry === 0) break;
      const id = entry - 1;
      if (this.#hashes[id] === h && rowsEqual(this.#rows[id]!, row)) return id;
      slot = (slot + 1) & this.#mask;
    }
    const id = this.size++;
    slots[slot] = id + 1;
    this.#hashes[id] = h;
    this.#rows.push(row);
    return id;
  }
}
