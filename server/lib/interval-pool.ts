/**
 * Closed intervals of small non-negative integers (row numbers), each with an owner, handed over as queries
 * reach them: `take(a, b, onTaken)` hands over, and removes, every interval still in the pool that overlaps
 * [a, b]. A query costs O(log n), plus O(log n) per interval it hands over, so queries that between them reach
 * every interval cost O(n log n) in all, where looking the whole list over per query is quadratic.
 *
 * The intervals are sorted by start (a counting sort: starts are row numbers) and held in a tree of the latest
 * end under each node. `restore()` puts back what was taken, at the cost of the taking, so one pool serves
 * query after query without being built again.
 */
import { countBelow } from './lower-bound.ts';

const NONE = -1;
/** The largest start or end (the counting sort's buckets are as many). */
export const MAX_POINT = 2 ** 24;

export class IntervalPool {
  /** Starts in ascending order, and each one's end and owner. */
  readonly #starts: Int32Array;
  readonly #ends: Int32Array;
  readonly #owners: Int32Array;
  /** Leaves from `#leaf`: the end of each interval still in the pool (NONE once taken); above: their maximum. */
  readonly #tree: Int32Array;
  readonly #leaf: number;
  /** Leaves taken since the last `restore`. */
  #taken: number[] = [];
  /** How many more the query under way may hand over. */
  #left = 0;

  /**
   * Intervals [starts[i], ends[i]] owned by owners[i], integers from 0 to MAX_POINT; an interval with its end
   * before its start is left out.
   */
  constructor(starts: ArrayLike<number>, ends: ArrayLike<number>, owners: ArrayLike<number>) {
    const kept: number[] = [];
    let maxStart = 0;
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i]!;
      if (!(start >= 0 && ends[i]! <= MAX_POINT)) throw new RangeError(`Interval out of range: ${start}`);
      if (ends[i]! < start) continue;
      kept.push(i);
      if (start > maxStart) maxStart = start;
    }
    const order = sortedByStart(kept, starts, maxStart);
    const n = order.length;
    this.#starts = new Int32Array(n);
    this.#ends = new Int32Array(n);
    this.#owners = new Int32Array(n);
    order.forEach((i, at) => {
      this.#starts[at] = starts[i]!;
      this.#ends[at] = ends[i]!;
      this.#owners[at] = owners[i]!;
    });
    let leaf = 1;
    while (leaf < n) leaf *= 2;
    this.#leaf = leaf;
    this.#tree = new Int32Array(2 * leaf).fill(NONE);
    this.#tree.set(this.#ends, leaf);
    for (let node = leaf - 1; node >= 1; node--)
      this.#tree[node] = Math.max(this.#tree[2 * node]!, this.#tree[2 * node + 1]!);
  }

  get size(): number {
    return this.#starts.length;
  }

  /** Every interval of the pool, taken or not, as [start, end, owner], by start (ties in the order given). */
  intervals(): [start: number, end: number, owner: number][] {
    return Array.from(this.#starts, (start, at) => [start, this.#ends[at]!, this.#owners[at]!]);
  }

  /**
   * Hands over (to `onTaken`, by owner) and removes every interval in the pool overlapping [a, b], or the first
   * `limit` of them: true when it stopped there, with more maybe left (the same query again hands over the rest).
   */
  take(a: number, b: number, onTaken: (owner: number) => void, limit = Number.POSITIVE_INFINITY): boolean {
    // Only intervals starting at or before b can overlap: a prefix of the sorted starts.
    const reach = countBelow(this.#starts, b + 1);
    this.#left = limit;
    if (reach > 0) this.#takeUnder(1, 0, this.#leaf, reach, a, onTaken);
    return this.#left === 0;
  }

  /** Every interval taken since the last restore back in the pool. */
  restore(): void {
    const tree = this.#tree;
    for (const at of this.#taken) tree[this.#leaf + at] = this.#ends[at]!;
    // Leaves first, then each one's ancestors: a node's last update comes after every leaf under it is back.
    for (const at of this.#taken)
      for (let node = (this.#leaf + at) >> 1; node >= 1; node >>= 1)
        tree[node] = Math.max(tree[2 * node]!, tree[2 * node + 1]!);
    this.#taken = [];
  }

  /** Recursion as deep as the tree (log2 of the size): bounded. */
  #takeUnder(
    node: number,
    lo: number,
    hi: number,
    reach: number,
    a: number,
    onTaken: (owner: number) => void,
  ): void {
    const tree = this.#tree;
    if (this.#left === 0 || lo >= reach || tree[node]! < a) return;
    if (hi - lo === 1) {
      tree[node] = NONE;
      this.#left--;
      this.#taken.push(lo);
      onTaken(this.#owners[lo]!);
      return;
    }
    const mid = (lo + hi) >> 1;
    this.#takeUnder(2 * node, lo, mid, reach, a, onTaken);
    this.#takeUnder(2 * node + 1, mid, hi, reach, a, onTaken);
    tree[node] = Math.max(tree[2 * node]!, tree[2 * node + 1]!);
  }
}

/** `kept` (places in `starts`) ordered by start, ties in their order: a counting sort, linear in rows and starts. */
function sortedByStart(kept: readonly number[], starts: ArrayLike<number>, maxStart: number): Int32Array {
  const counts = new Int32Array(maxStart + 2);
  for (const i of kept) counts[starts[i]! + 1] = counts[starts[i]! + 1]! + 1;
  for (let s = 1; s < counts.length; s++) counts[s] = counts[s]! + counts[s - 1]!;
  const order = new Int32Array(kept.length);
  for (const i of kept) {
    const start = starts[i]!;
    order[counts[start]!] = i;
    counts[start] = counts[start]! + 1;
  }
  return order;
}
