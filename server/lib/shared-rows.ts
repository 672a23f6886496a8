/**
 * What a write's new rows share with the old: a tab's new version is made by copying the old version's row
 * arrays (an append's concat, an update's slice), so its first `head` and last `tail` rows are the very objects
 * of the old version's first and last. The writer that makes the copy says so here, and the row diff
 * (diff/row-diff.ts) starts its comparison past them: an append to a million rows compared them all, 11-14 ms
 * of a 20 ms write.
 *
 * Only a claim about identity, which the diff would find itself (the same object is an equal row): a version
 * with no note, or a note about another version, is compared in full. The note holds the old rows weakly.
 */

interface Shared {
  from: WeakRef<readonly unknown[]>;
  head: number;
  tail: number;
}

const notes = new WeakMap<readonly unknown[], Shared>();

/**
 * `copy[i] === from[i]` for every i below `head`, and `copy[copy.length - 1 - j] === from[from.length - 1 - j]`
 * for every j below `tail`.
 */
export function noteSharedRows(
  copy: readonly unknown[],
  from: readonly unknown[],
  head: number,
  tail: number,
): void {
  if (copy === from) return;
  notes.set(copy, { from: new WeakRef(from), head: Math.max(0, head), tail: Math.max(0, tail) });
}

/** The rows `copy` is known to share with `from` at its head and its tail (none when nothing was noted). */
export function sharedRows(
  from: readonly unknown[],
  copy: readonly unknown[],
): { head: number; tail: number } {
  const note = notes.get(copy);
  if (note === undefined || note.from.deref() !== from) return { head: 0, tail: 0 };
  const most = Math.min(from.length, copy.length);
  const head = Math.min(note.head, most);
  return { head, tail: Math.min(note.tail, most - head) };
}

/**
 * The rows of a tab of `length` rows above the lowest of `indexes` and below the highest: what a write to those
 * rows (updated or deleted) leaves as they were, at the head and, while no row is added or dropped at the end,
 * at the tail.
 */
export function rowsAround(indexes: Iterable<number>, length: number): { head: number; tail: number } {
  let lowest = length;
  let highest = -1;
  for (const index of indexes) {
    lowest = Math.min(lowest, index);
    highest = Math.max(highest, index);
  }
  return { head: lowest, tail: Math.max(0, length - 1 - highest) };
}
