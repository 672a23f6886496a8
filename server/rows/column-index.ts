/**
 * One column's values as a search reads them, built once per snapshot: each distinct value once, and where its
 * rows are. A column of a million rows rarely has a million values (a region, a name, a product repeat), so a
 * search scans the distinct values, not every row; a value found gives its rows at once. Kept compact (typed
 * arrays over one joined string) because it lives as long as the snapshot:
 *
 *  - `text`: SEP + the distinct values joined by SEP + SEP, in order of first appearance; value v is
 *    text[starts[v] .. starts[v + 1] - 1).
 *  - `rowsOfValue` / `groupStart`: the rows of value v are rowsOfValue[groupStart[v] .. groupStart[v + 1]), in
 *    sheet order. Both null when every row has its own value: then value v is row v.
 *  - `slots`: an open-addressing hash table of value ids (+1; 0 is an empty slot), for finding a whole value.
 *  - `blocks`: the trigram filter (trigram-blocks.ts) over `text`, so a substring search skips most of it.
 */
import { runNow, STEP_MASK, type Steps } from '../lib/steps.ts';
import { type TrigramBlocks, trigramBlockSteps } from './trigram-blocks.ts';

export const SEP = '\u0000';

export interface ColumnIndex {
  rowCount: number;
  valueCount: number;
  text: string;
  starts: Uint32Array;
  rowsOfValue: Uint32Array | null;
  groupStart: Uint32Array | null;
  slots: Uint32Array;
  blocks: TrigramBlocks;
}

/** FNV-1a over UTF-16 code units, then mixed (murmur3's finalizer) so near-identical texts spread out. */
export function hashText(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Table size: a power of two at least twice the number of entries, so probes stay short. */
const tableSize = (entries: number): number => 2 ** Math.max(4, Math.ceil(Math.log2(entries * 2 + 1)));

interface Distinct {
  values: string[];
  hashes: Uint32Array;
  valueOfRow: Uint32Array;
  slots: Uint32Array;
}

/**
 * Each row's value id, the distinct values in order of first appearance, and the hash table finding them. The
 * table grows with the values (kept at most half full), so a column of few values probes a table that stays in
 * the processor's cache; a Map of a million strings would cost several times more time and memory.
 */
function* distinctValues(rowCount: number, form: (row: number) => string): Steps<Distinct> {
  const values: string[] = [];
  const hashes = new Uint32Array(rowCount);
  const valueOfRow = new Uint32Array(rowCount);
  let slots: Uint32Array = new Uint32Array(tableSize(0));
  let mask = slots.length - 1;
  for (let r = 0; r < rowCount; r++) {
    if ((r & STEP_MASK) === STEP_MASK) yield;
    const s = form(r);
    const h = hashText(s);
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const id = slots[i]!;
      if (id === 0) {
        hashes[values.length] = h;
        values.push(s);
        slots[i] = values.length;
        valueOfRow[r] = values.length - 1;
        if (values.length * 2 >= slots.length) {
          slots = hashTable(hashes, values.length);
          mask = slots.length - 1;
        }
        break;
      }
      if (hashes[id - 1] === h && values[id - 1] === s) {
        valueOfRow[r] = id - 1;
        break;
      }
    }
  }
  return { values, hashes, valueOfRow, slots };
}

/** A table of the first `count` values' ids, from their hashes. */
function hashTable(hashes: Uint32Array, count: number): Uint32Array {
  const slots = new Uint32Array(tableSize(count));
  const mask = slots.length - 1;
  for (let v = 0; v < count; v++) {
    let i = hashes[v]! & mask;
    while (slots[i] !== 0) i = (i + 1) & mask;
    slots[i] = v + 1;
  }
  return slots;
}

/** The rows grouped by value (a counting sort: stable, so each value's rows stay in sheet order). */
function* groupRows(
  valueOfRow: Uint32Array,
  valueCount: number,
): Steps<{ rowsOfValue: Uint32Array; groupStart: Uint32Array }> {
  const rowCount = valueOfRow.length;
  const groupStart = new Uint32Array(valueCount + 1);
  for (let r = 0; r < rowCount; r++) {
    if ((r & STEP_MASK) === STEP_MASK) yield;
    groupStart[valueOfRow[r]! + 1]!++;
  }
  for (let v = 0; v < valueCount; v++) groupStart[v + 1]! += groupStart[v]!;
  const next = groupStart.slice(0, valueCount);
  const rowsOfValue = new Uint32Array(rowCount);
  for (let r = 0; r < rowCount; r++) {
    if ((r & STEP_MASK) === STEP_MASK) yield;
    rowsOfValue[next[valueOfRow[r]!]!++] = r;
  }
  return { rowsOfValue, groupStart };
}

/** Builds the index of `rowCount` rows whose searched text is `form(row)`. */
export function buildColumnIndex(rowCount: number, form: (row: number) => string): ColumnIndex {
  return runNow(columnIndexSteps(rowCount, form));
}

/** `buildColumnIndex`, a step at a time (lib/steps.ts). */
export function* columnIndexSteps(rowCount: number, form: (row: number) => string): Steps<ColumnIndex> {
  const { values, valueOfRow, slots } = yield* distinctValues(rowCount, form);
  const valueCount = values.length;
  const starts = new Uint32Array(valueCount + 1);
  let pos = 1;
  for (let v = 0; v < valueCount; v++) {
    starts[v] = pos;
    pos += values[v]!.length + 1;
  }
  starts[valueCount] = pos;
  const text = yield* joined(values);
  // Every row its own value: value v is row v, and the groups would say so at 8 bytes a row.
  const groups = valueCount < rowCount ? yield* groupRows(valueOfRow, valueCount) : null;
  const blocks = yield* trigramBlockSteps(text);
  return {
    rowCount,
    valueCount,
    text,
    starts,
    rowsOfValue: groups?.rowsOfValue ?? null,
    groupStart: groups?.groupStart ?? null,
    slots,
    blocks,
  };
}

/** SEP + the values joined by SEP + SEP, a step's worth of values at a time (a million of them take a while). */
function* joined(values: string[]): Steps<string> {
  const parts: string[] = [];
  for (let from = 0; from < values.length; from += STEP_MASK + 1) {
    parts.push(values.slice(from, from + STEP_MASK + 1).join(SEP));
    yield;
  }
  return SEP + parts.join(SEP) + SEP;
}

/** The id of the value equal to `s`, or -1. */
export function findValue(index: ColumnIndex, s: string): number {
  const { slots, starts, text } = index;
  const mask = slots.length - 1;
  for (let i = hashText(s) & mask; ; i = (i + 1) & mask) {
    const id = slots[i]!;
    if (id === 0) return -1;
    const v = id - 1;
    if (starts[v + 1]! - 1 - starts[v]! === s.length && text.startsWith(s, starts[v]!)) return v;
  }
}

/** The value `v` as text. */
export function valueText(index: ColumnIndex, v: number): string {
  return index.text.slice(index.starts[v]!, index.starts[v + 1]! - 1);
}

/** The value whose span in `text` holds `pos`: the last v with starts[v] <= pos. */
export function valueAt(index: ColumnIndex, pos: number): number {
  const { starts } = index;
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The rows holding any of `values` (ascending ids), ascending. */
export function rowsOfValues(index: ColumnIndex, values: Uint32Array): Uint32Array {
  const { rowsOfValue, groupStart, rowCount } = index;
  if (rowsOfValue === null || groupStart === null) return values; // value v is row v
  let count = 0;
  for (let i = 0; i < values.length; i++) count += groupStart[values[i]! + 1]! - groupStart[values[i]!]!;
  if (values.length === 1) return rowsOfValue.slice(groupStart[values[0]!]!, groupStart[values[0]! + 1]!);
  if (count * 16 < rowCount) {
    // Few rows: gather and sort them (numeric: a typed array sorts by value).
    const out = new Uint32Array(count);
    let k = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      for (let j = groupStart[v]!; j < groupStart[v + 1]!; j++) out[k++] = rowsOfValue[j]!;
    }
    return out.sort();
  }
  // Many: mark them, then read the marks in row order.
  const marks = new Uint8Array(rowCount);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    for (let j = groupStart[v]!; j < groupStart[v + 1]!; j++) marks[rowsOfValue[j]!] = 1;
  }
  const out = new Uint32Array(count);
  let k = 0;
  for (let r = 0; r < rowCount; r++) if (marks[r] === 1) out[k++] = r;
  return out;
}
