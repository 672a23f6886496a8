/**
 * A column's number cells in value order, for `where`'s number ranges (`<`, `<=`, `>`, `>=`, `between`): two binary
 * searches give the slice of rows in range, so a selective range reads only its rows. Built once per snapshot
 * by a radix sort of the numbers' bits (four passes of 16 bits, each a step at a time: no comparison sort holds
 * the event loop), and kept as long as the snapshot.
 */
import { lowerBound } from '../lib/lower-bound.ts';
import { OwnerCache } from '../lib/owner-cache.ts';
import { STEP_MASK, type Steps } from '../lib/steps.ts';
import type { CellValue } from '../sources/source.ts';

export interface NumberOrder {
  /** The column's numbers, ascending (a -0 read as 0). */
  values: Float64Array;
  /** The row of each, in the same order; equal numbers keep sheet order. */
  rows: Uint32Array;
}

const cache = new OwnerCache<object, number, NumberOrder>();

/** The order of column `col` of the snapshot rows `typed`, built a step at a time unless cached. */
export function* numberOrderSteps(typed: readonly CellValue[][], col: number): Steps<NumberOrder> {
  const cached = cache.peek(typed, col);
  if (cached) return cached;
  const order = yield* build(typed, col);
  return cache.get(typed, col, () => order);
}

/** The slice [from, to) of `order` whose numbers stand to `x` as `op` says. */
export function numberRange(order: NumberOrder, x: number, op: '<' | '<=' | '>' | '>='): [number, number] {
  const { values } = order;
  const firstAtLeast = lowerBound(values, (y) => y >= x);
  const firstAbove = lowerBound(values, (y) => y > x);
  switch (op) {
    case '<':
      return [0, firstAtLeast];
    case '<=':
      return [0, firstAbove];
    case '>':
      return [firstAbove, values.length];
    case '>=':
      return [firstAtLeast, values.length];
  }
}

function* build(typed: readonly CellValue[][], col: number): Steps<NumberOrder> {
  // One pass over the rows (each row's cells are an object of their own: a pass is a cache miss a row).
  const all = new Float64Array(typed.length);
  const allRows = new Uint32Array(typed.length);
  let count = 0;
  for (let r = 0; r < typed.length; r++) {
    if ((r & STEP_MASK) === STEP_MASK) yield;
    const v = typed[r]![col];
    if (typeof v === 'number') {
      all[count] = v === 0 ? 0 : v; // -0 is 0 here: equal numbers keep sheet order
      allRows[count++] = r;
    }
  }
  // The numbers' bits, as 32-bit halves of one buffer (little-endian: [2i] low, [2i + 1] high).
  const numbers = count === typed.length ? all : all.slice(0, count);
  let rows = count === typed.length ? allRows : allRows.slice(0, count);
  const halves = new Uint32Array(numbers.buffer);
  // Keys that sort as unsigned integers in the numbers' order: negatives inverted, positives' sign bit set.
  let lo = new Uint32Array(count);
  let hi = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const h = halves[2 * i + 1]!;
    const l = halves[2 * i]!;
    const negative = h >>> 31 === 1;
    hi[i] = negative ? ~h >>> 0 : (h | 0x80000000) >>> 0;
    lo[i] = negative ? ~l >>> 0 : l;
  }
  yield;
  // Least significant digit first; each pass is stable, so equal numbers keep sheet order.
  const counts = new Uint32Array(65_537);
  let lo2 = new Uint32Array(count);
  let hi2 = new Uint32Array(count);
  let rows2 = new Uint32Array(count);
  for (const [half, shift] of [
    ['lo', 0],
    ['lo', 16],
    ['hi', 0],
    ['hi', 16],
  ] as const) {
    const keys = half === 'lo' ? lo : hi;
    counts.fill(0);
    for (let i = 0; i < count; i++) counts[((keys[i]! >>> shift) & 0xffff) + 1]!++;
    // Every key the same digit (a whole number's low bits, a small number's high ones): the pass keeps the order.
    if (count > 0 && counts[((keys[0]! >>> shift) & 0xffff) + 1] === count) continue;
    for (let d = 0; d < 65_536; d++) counts[d + 1]! += counts[d]!;
    yield;
    for (let i = 0; i < count; i++) {
      if ((i & STEP_MASK) === STEP_MASK) yield;
      const at = counts[(keys[i]! >>> shift) & 0xffff]!++;
      lo2[at] = lo[i]!;
      hi2[at] = hi[i]!;
      rows2[at] = rows[i]!;
    }
    [lo, lo2] = [lo2, lo];
    [hi, hi2] = [hi2, hi];
    [rows, rows2] = [rows2, rows];
  }
  // Back from keys to numbers.
  for (let i = 0; i < count; i++) {
    const negative = hi[i]! >>> 31 === 0;
    halves[2 * i + 1] = negative ? ~hi[i]! >>> 0 : (hi[i]! & 0x7fffffff) >>> 0;
    halves[2 * i] = negative ? ~lo[i]! >>> 0 : lo[i]!;
  }
  return { values: numbers, rows };
}
