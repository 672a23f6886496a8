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
export function lcsMatches(a: Int32Array, b: Int32Array, maxD: number): Matches | null {
  const search = new MyersSearch(a, b);
  return search.compare(0, a.length, 0, b.length, maxD) ? search.matches() : null;
}

/**
 * One search's state: the two sequences, the furthest-reaching paths of both directions, the middle snake last
 * found and the matches recorded so far. A class rather than closures so each step is a named method over
 * fields V8 keeps in fixed slots.
 */
class MyersSearch {
  readonly a: Int32Array;
  readonly b: Int32Array;
  readonly ia: Int32Array;
  readonly ib: Int32Array;
  count = 0;
  /** Diagonal k is at index off + k: the diagonals of a box of size n x m lie in [-m, n]. */
  readonly off: number;
  /** Forward: furthest x on diagonal k. */
  readonly vf: Int32Array;
  /** Backward: furthest distance from the end on diagonal c = delta - k. */
  readonly vb: Int32Array;
  // The middle snake found by midSnake, in absolute indices: (sx0, sy0) .. (sx1, sy1).
  sx0 = 0;
  sy0 = 0;
  sx1 = 0;
  sy1 = 0;

  constructor(a: Int32Array, b: Int32Array) {
    this.a = a;
    this.b = b;
    this.ia = new Int32Array(Math.min(a.length, b.length));
    this.ib = new Int32Array(Math.min(a.length, b.length));
    this.off = ((a.length + b.length + 1) >> 1) + 2;
    this.vf = new Int32Array(2 * this.off + 1);
    this.vb = new Int32Array(2 * this.off + 1);
  }

  matches(): Matches {
    return { ia: this.ia, ib: this.ib, count: this.count };
  }

  /** Records the matches of a[aLo, aHi) x b[bLo, bHi) in order; false if the top-level D exceeds `limit`. */
  compare(aLo: number, aHi: number, bLo: number, bHi: number, limit: number): boolean {
    const { a, b, ia, ib } = this;
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
      ia[this.count] = aLo++;
      ib[this.count++] = bLo++;
    }
    let sa = aHi;
    let sb = bHi;
    while (sa > aLo && sb > bLo && a[sa - 1] === b[sb - 1]) {
      sa--;
      sb--;
    }
    if (aLo < sa && bLo < sb) {
      // Both sides non-empty and their ends differ, so D >= 2 and each half has a smaller D: the recursion ends.
      if (!this.midSnake(aLo, sa - aLo, bLo, sb - bLo, limit)) return false;
      const { sx0: x0, sy0: y0, sx1: x1, sy1: y1 } = this;
      this.compare(aLo, x0, bLo, y0, Number.POSITIVE_INFINITY);
      for (let x = x0, y = y0; x < x1; x++, y++) {
        ia[this.count] = x;
        ib[this.count++] = y;
      }
      this.compare(x1, sa, y1, sb, Number.POSITIVE_INFINITY);
    }
    for (; sa < aHi; sa++, sb++) {
      ia[this.count] = sa;
      ib[this.count++] = sb;
    }
    return true;
  }

  /** Finds the middle snake of the box a[aLo, aLo+n) x b[bLo, bLo+m); false if its D exceeds `limit`. */
  midSnake(aLo: number, n: number, bLo: number, m: number, limit: number): boolean {
    const dMax = (n + m + 1) >> 1;
    for (let d = 0; d <= dMax; d++) {
      if (2 * d - 1 > limit) return false;
      if (this.forward(aLo, n, bLo, m, d)) return true;
      if (2 * d > limit) return false;
      if (this.backward(aLo, n, bLo, m, d)) return true;
    }
    /* c8 ignore next */
    throw new Error('myers: no middle snake (unreachable)');
  }

  /** Forward d-paths from (0, 0); true when one overlaps a backward (d-1)-path (then the snake is set). */
  forward(aLo: number, n: number, bLo: number, m: number, d: number): boolean {
    const { a, b, vf, vb, off } = this;
    const delta = n - m;
    const odd = (delta & 1) !== 0;
    for (let k = -d; k <= d; k += 2) {
      const start = d === 0 ? 0 : furthestStart(vf, off, k, d, n, m);
      if (start === NONE) {
        vf[off + k] = NONE;
        continue;
      }
      let x = start;
      let y = x - k;
      while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
        x++;
        y++;
      }
      vf[off + k] = x;
      if (!odd) continue;
      const c = delta - k;
      if (c < 1 - d || c > d - 1) continue;
      const r = vb[off + c]!;
      if (r >= 0 && x + r >= n) {
        this.setSnake(aLo + start, bLo + start - k, aLo + x, bLo + y);
        return true;
      }
    }
    return false;
  }

  /**
   * Backward d-paths from (n, m), in reversed coordinates (rx = n - x, ry = m - y, c = rx - ry); true when one
   * overlaps a forward d-path (then the snake is set).
   */
  backward(aLo: number, n: number, bLo: number, m: number, d: number): boolean {
    const { a, b, vf, vb, off } = this;
    const delta = n - m;
    const odd = (delta & 1) !== 0;
    for (let c = -d; c <= d; c += 2) {
      const start = d === 0 ? 0 : furthestStart(vb, off, c, d, n, m);
      if (start === NONE) {
        vb[off + c] = NONE;
        continue;
      }
      let rx = start;
      let ry = rx - c;
      while (rx < n && ry < m && a[aLo + n - 1 - rx] === b[bLo + m - 1 - ry]) {
        rx++;
        ry++;
      }
      vb[off + c] = rx;
      if (odd) continue;
      const k = delta - c;
      if (k < -d || k > d) continue;
      const f = vf[off + k]!;
      if (f >= 0 && f + rx >= n) {
        this.setSnake(aLo + n - rx, bLo + m - ry, aLo + n - start, bLo + m - start + c);
        return true;
      }
    }
    return false;
  }

  setSnake(x0: number, y0: number, x1: number, y1: number): void {
    this.sx0 = x0;
    this.sy0 = y0;
    this.sx1 = x1;
    this.sy1 = y1;
  }
}

/**
 * Where a d-path on diagonal k starts before its snake (d > 0): down from diagonal k+1 (x kept, y + 1) or right
 * from diagonal k-1 (x + 1), whichever reaches further and stays in the n x m box; NONE when neither does.
 * `v` is one direction's furthest-reaching array, diagonal k at index off + k.
 */
function furthestStart(v: Int32Array, off: number, k: number, d: number, n: number, m: number): number {
  const down = k + 1 <= d - 1 ? v[off + k + 1]! : NONE;
  const right = k - 1 >= 1 - d ? v[off + k - 1]! + 1 : NONE;
  const downOk = down >= 0 && down - k <= m;
  const rightOk = right >= 0 && right <= n;
  if (downOk && (!rightOk || down > right)) return down;
  if (rightOk) return right;
  return NONE;
}
