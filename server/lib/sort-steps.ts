/**
 * A sort that yields (lib/steps.ts): Array.prototype.sort holds the event loop for the whole sort, seconds for a
 * million texts compared by a collator. This is a bottom-up merge sort of indices: runs of RUN by insertion, then
 * passes that merge runs pairwise, a yield every STEP_ROWS items placed. Stable; n log n comparisons.
 */
import { STEP_MASK, type Steps } from './steps.ts';

const RUN = 32;

/** The indices 0..n-1 ordered by `compare` (ties in index order), a step at a time. */
export function* sortedIndexSteps(n: number, compare: (a: number, b: number) => number): Steps<Uint32Array> {
  let from = new Uint32Array(n);
  for (let i = 0; i < n; i++) from[i] = i;
  for (let start = 0; start < n; start += RUN) {
    if ((start & STEP_MASK) === 0) yield;
    insertionSort(from, start, Math.min(start + RUN, n), compare);
  }
  let to = new Uint32Array(n);
  let placed = 0;
  for (let width = RUN; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const mid = Math.min(left + width, n);
      const end = Math.min(left + 2 * width, n);
      let i = left;
      let j = mid;
      for (let k = left; k < end; k++) {
        if ((++placed & STEP_MASK) === 0) yield;
        // `<= 0` takes from the left run on ties: stable.
        if (i < mid && (j >= end || compare(from[i]!, from[j]!) <= 0)) to[k] = from[i++]!;
        else to[k] = from[j++]!;
      }
    }
    [from, to] = [to, from];
  }
  return from;
}

function insertionSort(
  items: Uint32Array,
  start: number,
  end: number,
  compare: (a: number, b: number) => number,
): void {
  for (let i = start + 1; i < end; i++) {
    const item = items[i]!;
    let j = i - 1;
    while (j >= start && compare(items[j]!, item) > 0) {
      items[j + 1] = items[j]!;
      j--;
    }
    items[j + 1] = item;
  }
}
