/**
 * Sorting for list queries, built for 100k-row tabs:
 *  - each column is turned once into integer ranks (equal values share a rank) and cached per snapshot;
 *  - a multi-key sort is then a chain of stable counting sorts over ranks (LSD: last key first), O(n) per key,
 *    and the resulting order is cached per (snapshot, sort spec), so repeating a sort costs nothing.
 * Order within a column: numbers (numeric) < text (collation.ts: case and accents ignored, as `search` does;
 * numeric collation: item2 < item10)
 * < false < true; empty cells always last, in both directions. Ties keep sheet order.
 *
 * In formatted mode we still compare the typed values (so "$1,000.00" sorts as the number 1000, dates by
 * their ISO value); only the notion of "empty" comes from the displayed text ('' sorts last).
 */
import { lowerBound } from '../lib/lower-bound.ts';
import { OwnerCache } from '../lib/owner-cache.ts';
import { sortedIndexSteps } from '../lib/sort-steps.ts';
import { runNow, STEP_MASK, type Steps } from '../lib/steps.ts';
import type { CellValue } from '../sources/source.ts';
import { compareFolded, foldText, sortKey } from './collation.ts';
import { numberOrderSteps } from './number-order.ts';

export type ValueMode = 'typed' | 'formatted';

export const NULL_RANK = 0xffffffff;

interface SortableTab {
  typed: CellValue[][];
  formatted: string[][];
}

export interface ColumnRanks {
  /** Rank per row; NULL_RANK for empty cells. */
  ranks: Uint32Array;
  /** Ranks are 0..count-1 (in formatted mode a number shown as '' leaves its rank unused). */
  count: number;
  /** One folded text per text rank, in sort order: the i-th has rank `firstText + i`. */
  texts: string[];
  firstText: number;
}

/**
 * Caches are keyed by the snapshot's row array: snapshots are immutable and a new snapshot brings new arrays,
 * so entries die with the snapshot. Typed mode keys on `typed`, formatted mode on `formatted` (in a snapshot
 * they are created together, so either identifies the pair).
 */
const rankCache = new OwnerCache<object, number, ColumnRanks>();
/** Sorted orders kept per snapshot (each is 4 bytes a row); the least recently used spec is evicted. */
const MAX_ORDERS_PER_TAB = 16;
const orderCache = new OwnerCache<object, string, Uint32Array>(MAX_ORDERS_PER_TAB);

function isEmpty(tab: SortableTab, row: number, col: number, mode: ValueMode): boolean {
  const t = tab.typed[row]?.[col] ?? null;
  if (mode === 'typed') return t === null;
  return t === null || tab.formatted[row]?.[col] === '';
}

/**
 * A column's ranks, a step at a time (lib/steps.ts): every pass yields, the sort of the texts too. Numbers take
 * their ranks from the column's number order (number-order.ts: a radix sort, cached for `where`'s ranges too),
 * equal numbers one rank; texts from textOrderSteps. No map of a million numbers; one of texts only where they
 * repeat.
 */
function* rankSteps(tab: SortableTab, col: number, mode: ValueMode): Steps<ColumnRanks> {
  const n = tab.typed.length;
  const ranks = new Uint32Array(n);
  // Each text row holds its text's index in `texts` until their ranks are known. A text seen again takes the
  // index it has, until the column shows that its texts hardly repeat (over 15 in 16 of its first ones are
  // distinct): then the map would cost more than sorting the repeats (a million distinct e-mails: 0.9 s and its
  // collection), and each text takes a new index.
  const texts: string[] = [];
  let seen: Map<string, number> | null = new Map();
  let textRows = 0;
  let hasFalse = false;
  let hasTrue = false;
  for (let r = 0; r < n; r++) {
    if ((r & STEP_MASK) === STEP_MASK) yield;
    if (isEmpty(tab, r, col, mode)) continue;
    const v = tab.typed[r]![col];
    if (typeof v === 'string') {
      let index = seen?.get(v);
      if (index === undefined) {
        index = texts.length;
        texts.push(v);
        seen?.set(v, index);
      }
      ranks[r] = index;
      if (++textRows === REPEATS_SAMPLE && texts.length > (REPEATS_SAMPLE * 15) / 16) seen = null;
    } else if (v === true) hasTrue = true;
    else if (v === false) hasFalse = true;
  }

  // Numbers first, ascending. (In formatted mode a number displayed as '' is empty: its rank is overwritten
  // below, and goes unused.)
  const { values, rows } = yield* numberOrderSteps(tab.typed, col);
  let next = 0;
  for (let i = 0; i < values.length; i++) {
    if ((i & STEP_MASK) === STEP_MASK) yield;
    if (i > 0 && values[i] !== values[i - 1]) next++;
    ranks[rows[i]!] = next;
  }
  if (values.length > 0) next++;

  const firstText = next;
  seen = null;
  const order = yield* textOrderSteps(texts);
  next += order.texts.length;
  const falseRank = next;
  if (hasFalse) next++;
  const trueRank = next;
  if (hasTrue) next++;

  for (let r = 0; r < n; r++) {
    if ((r & STEP_MASK) === STEP_MASK) yield;
    if (isEmpty(tab, r, col, mode)) {
      ranks[r] = NULL_RANK;
      continue;
    }
    const v = tab.typed[r]![col];
    if (typeof v === 'number') continue; // ranked above
    if (typeof v === 'string') ranks[r] = firstText + order.rankOf[ranks[r]!]!;
    else ranks[r] = v ? trueRank : falseRank;
  }
  return { ranks, count: next, texts: order.texts, firstText };
}

/** Text cells a column's map takes before it is judged (see rankSteps). */
const REPEATS_SAMPLE = 4_096;

/**
 * The order of texts (repeats allowed): folded, then sorted by the collation (collation.ts), through plain keys
 * where the text allows. Texts the collation calls equal ('zoe' / 'Zoë', 'a01' / 'a1') share a rank, so they keep
 * sheet order. Answers each text's rank and, for each rank, the first of its folded texts.
 */
function* textOrderSteps(values: string[]): Steps<{ rankOf: Uint32Array; texts: string[] }> {
  const folded = new Array<string>(values.length);
  const keys = new Array<string | null>(values.length);
  for (let i = 0; i < values.length; i++) {
    if ((i & TEXT_STEP_MASK) === TEXT_STEP_MASK) yield;
    folded[i] = foldText(values[i]!);
    keys[i] = sortKey(folded[i]!);
  }
  const compare = (a: number, b: number): number => {
    const ka = keys[a]!;
    const kb = keys[b]!;
    return ka !== null && kb !== null ? codeUnitOrder(ka, kb) : compareFolded(folded[a]!, folded[b]!);
  };
  const order = yield* sortedIndexSteps(values.length, compare);
  const rankOf = new Uint32Array(values.length);
  const texts: string[] = [];
  for (let i = 0; i < order.length; i++) {
    if ((i & STEP_MASK) === STEP_MASK) yield;
    if (i === 0 || compare(order[i - 1]!, order[i]!) !== 0) texts.push(folded[order[i]!]!);
    rankOf[order[i]!] = texts.length - 1;
  }
  return { rankOf, texts };
}

/** Folding a text and making its key is about a microsecond: a step of them is shorter than a step of rows. */
const TEXT_STEP_MASK = 4_095;
const codeUnitOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A column's ranks (cached per snapshot): the order `sort` gives it, which `where`'s text ranges follow too. */
export function columnRanks(tab: SortableTab, col: number, mode: ValueMode): ColumnRanks {
  const owner = mode === 'typed' ? tab.typed : tab.formatted;
  return rankCache.get(owner, col, () => runNow(rankSteps(tab, col, mode)));
}

/** `columnRanks`, a step at a time when it is not cached yet (for `where`, which can wait its turns). */
export function* columnRanksSteps(tab: SortableTab, col: number, mode: ValueMode): Steps<ColumnRanks> {
  const owner = mode === 'typed' ? tab.typed : tab.formatted;
  const cached = rankCache.peek(owner, col);
  if (cached) return cached;
  const ranks = yield* rankSteps(tab, col, mode);
  return rankCache.get(owner, col, () => ranks);
}

/** Stable counting sort of `order` by one key; empties go to the last bucket whatever the direction. */
function countingSort(order: Uint32Array, col: ColumnRanks, descending: boolean): Uint32Array {
  const { ranks, count } = col;
  const counts = new Uint32Array(count + 2); // buckets 0..count-1 for values, bucket `count` for empties
  const bucket = (row: number): number => {
    const r = ranks[row]!;
    if (r === NULL_RANK) return count;
    return descending ? count - 1 - r : r;
  };
  for (let i = 0; i < order.length; i++) counts[bucket(order[i]!) + 1]!++;
  for (let b = 1; b < counts.length; b++) counts[b]! += counts[b - 1]!;
  const out = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) {
    const row = order[i]!;
    out[counts[bucket(row)]!++] = row;
  }
  return out;
}

export interface ResolvedSortKey {
  col: number;
  descending: boolean;
}

/** Row indices (0-based) of the whole tab in sorted order. Cached: callers must not mutate the result. */
export function sortedOrder(tab: SortableTab, keys: ResolvedSortKey[], mode: ValueMode): Uint32Array {
  const owner = mode === 'typed' ? tab.typed : tab.formatted;
  const spec = keys.map((k) => (k.descending ? `-${k.col}` : `${k.col}`)).join(',');
  return orderCache.get(owner, spec, () => {
    let order: Uint32Array = new Uint32Array(tab.typed.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    // LSD: sorting by the least significant key first; stability makes earlier keys dominate.
    for (let k = keys.length - 1; k >= 0; k--) {
      const key = keys[k]!;
      order = countingSort(order, columnRanks(tab, key.col, mode), key.descending);
    }
    return order;
  });
}

/**
 * A few rows (ascending) in the order `sortedOrder` would give them, without the whole tab's order: compared
 * key by key on the same ranks (empties last in both directions), ties in sheet order.
 */
export function sortRows(
  tab: SortableTab,
  rows: Uint32Array,
  keys: ResolvedSortKey[],
  mode: ValueMode,
): Uint32Array {
  const ranked = keys.map((k) => ({ ranks: columnRanks(tab, k.col, mode).ranks, descending: k.descending }));
  return Uint32Array.from(rows).sort((a, b) => {
    for (const { ranks, descending } of ranked) {
      const ra = ranks[a]!;
      const rb = ranks[b]!;
      if (ra === rb) continue;
      if (ra === NULL_RANK) return 1;
      if (rb === NULL_RANK) return -1;
      return descending ? rb - ra : ra - rb;
    }
    return a - b;
  });
}

/**
 * The text ranks (a range [from, to) of ColumnRanks) whose texts stand to `text` as `op` says, in sort's order:
 * folded, then compared by the collation, so the rows whose text is `>= text` are a tail of the column's text
 * order. Two binary searches over the sorted distinct texts.
 */
export function textRankRange(col: ColumnRanks, text: string, op: '<' | '<=' | '>' | '>='): [number, number] {
  const folded = foldText(text);
  const { texts, firstText } = col;
  const firstAtLeast = lowerBound(texts, (t) => compareFolded(t, folded) >= 0);
  const firstAbove = lowerBound(texts, (t) => compareFolded(t, folded) > 0);
  const end = firstText + texts.length;
  switch (op) {
    case '<':
      return [firstText, firstText + firstAtLeast];
    case '<=':
      return [firstText, firstText + firstAbove];
    case '>':
      return [firstText + firstAbove, end];
    case '>=':
      return [firstText + firstAtLeast, end];
  }
}
