/** The first index of sorted `items` whose item passes `atOrAfter` (which no item before it passes); a binary search. */
export function lowerBound<T>(items: ArrayLike<T>, atOrAfter: (item: T) => boolean): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (atOrAfter(items[mid] as T)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** How many of ascending `sorted` are below `value`. */
export function countBelow(sorted: ArrayLike<number>, value: number): number {
  return lowerBound(sorted, (item) => item >= value);
}
