/**
 * Longest common subsequence of two integer sequences by Myers' O(ND) algorithm, in its linear-space form
 * (find the middle snake by searching forward from the start and backward from the end at once, then recurse on
 * the two halves). Time O((N+M)·D), memory O(N+M), where D is the number of insertions plus deletions of a
 * shortest edit script. Pure, no allocation per step.
 */

/** Matched index pairs, ascending in both sequences: `a[ia[i]] === b[ib[i]]` for i < count. */
export interface Matches {
  ia: Int32Array;
  ib: Int32Array;
  count: number;
}

/** Marks a diagonal no D-path reaches (every real x is >= 0). */
const NONE = -0x40000000;

/**
 * The matched pairs of a longest common subsequence of `a` and `b`, or null when a shortest edit script needs
 * more than `maxD` insertions + deletions (the search stops after about maxD²/2 diagonal steps).
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: 140 lines, split into named steps by the change recording work; remove this line with that split
export function lcsMatches(a: Int32Array, b: Int32Array, maxD: number): Matches | null {
  const n = a.length;
  const m = b.length;
  const ia = new Int32Array(Math.min(n, m));
  const ib = new Int32Array(Math.min(n, m));
  let count = 0;
  // Diagonals k = x - y of a box of size n x m lie in [-m, n]; a search of depth d touches [-d, d].
  const off = ((n + m + 1) >> 1) + 2;
  const vf = new Int32Array(2 * off + 1); // forward: furthest x on diagonal k (index off + k)
  const vb = new Int32Array(2 * off + 1); // backward: furthest distance from the end on diagonal c = delta - k
  // The middle snake found by midSnake, in absolute indices: (sx0, sy0) .. (sx1, sy1).
  let sx0 = 0;
  let sy0 = 0;
  let sx1 = 0;
  let sy1 = 0;

  /** Finds the middle snake of the box a[aLo, aLo+n) x b[bLo, bLo+m); false if its D exceeds `limit`. */
  function midSnake(aLo: number, n: number, bLo: number, m: number, limit: number): boolean {
    const delta = n - m;
    const odd = (delta & 1) !== 0;
    const dMax = (n + m + 1) >> 1;
    for (let d = 0; d <= dMax; d++) {
      if (2 * d - 1 > limit) return false;
      // Forward d-paths from (0, 0).
      for (let k = -d; k <= d; k += 2) {
        let x: number;
        if (d === 0) x = 0;
        else {
          // Down from diagonal k+1 (x kept, y + 1) or right from diagonal k-1 (x + 1), staying in the box.
          const down = k + 1 <= d - 1 ? vf[off + k + 1]! : NONE;
          const right = k - 1 >= 1 - d ? vf[off + k - 1]! + 1 : NONE;
          const downOk = down >= 0 && down - k <= m;
          const rightOk = right >= 0 && right <= n;
          if (downOk && (!rightOk || down > right)) x = down;
          else if (rightOk) x = right;
          else {
            vf[off + k] = NONE;
            continue;
          }
        }
        let y = x - k;
        const x0 = x;
        const y0 = y;
        while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
          x++;
          y++;
        }
        vf[off + k] = x;
        if (odd) {
          const c = delta - k;
          if (c >= 1 - d && c <= d - 1) {
            const r = vb[off + c]!;
            if (r >= 0 && x + r >= n) {
              sx0 = aLo + x0;
              sy0 = bLo + y0;
              sx1 = aLo + x;
              sy1 = bLo + y;
              return true;
            }
          }
        }
      }
      if (2 * d > limit) return false;
      // Backward d-paths from (n, m), in reversed coordinates (rx = n - x, ry = m - y, c = rx - ry).
      for (let c = -d; c <= d; c += 2) {
        let rx: number;
        if (d === 0) rx = 0;
        else {
          const down = c + 1 <= d - 1 ? vb[off + c + 1]! : NONE;
          const right = c - 1 >= 1 - d ? vb[off + c - 1]! + 1 : NONE;
          const downOk = down >= 0 && down - c <= m;
          const rightOk = right >= 0 && right <= n;
          if (downOk && (!rightOk || down > right)) rx = down;
          else if (rightOk) rx = right;
          else {
            vb[off + c] = NONE;
            continue;
          }
        }
        let ry = rx - c;
        const rx0 = rx;
        const ry0 = ry;
        while (rx < n && ry < m && a[aLo + n - 1 - rx] === b[bLo + m - 1 - ry]) {
          rx++;
          ry++;
        }
        vb[off + c] = rx;
        if (!odd) {
          const k = delta - c;
          if (k >= -d && k <= d) {
            const f = vf[off + k]!;
            if (f >= 0 && f + rx >= n) {
              sx0 = aLo + n - rx;
              sy0 = bLo + m - ry;
              sx1 = aLo + n - rx0;
              sy1 = bLo + m - ry0;
              return true;
            }
          }
        }
      }
    }
    /* c8 ignore next */
    throw new Error('myers: no middle snake (unreachable)');
  }

  /** Records the matches of a[aLo, aHi) x b[bLo, bHi) in order; false if the top-level D exceeds `limit`. */
  function compare(aLo: number, aHi: number, bLo: number, bHi: number, limit: number): boolean {
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
      ia[count] = aLo++;
      ib[count++] = bLo++;
    }
    let sa = aHi;
    let sb = bHi;
    while (sa > aLo && sb > bLo && a[sa - 1] === b[sb - 1]) {
      sa--;
      sb--;
    }
    if (aLo < sa && bLo < sb) {
      // Both sides non-empty and their ends differ, so D >= 2 and each half has a smaller D: the recursion ends.
      if (!midSnake(aLo, sa - aLo, bLo, sb - bLo, limit)) return false;
      const x0 = sx0;
      const y0 = sy0;
      const x1 = sx1;
      const y1 = sy1;
      compare(aLo, x0, bLo, y0, Number.POSITIVE_INFINITY);
      for (let x = x0, y = y0; x < x1; x++, y++) {
        ia[count] = x;
        ib[count++] = y;
      }
      compare(x1, sa, y1, sb, Number.POSITIVE_INFINITY);
    }
    for (; sa < aHi; sa++, sb++) {
      ia[count] = sa;
      ib[count++] = sb;
    }
    return true;
  }

  return compare(0, n, 0, m, maxD) ? { ia, ib, count } : null;
}
