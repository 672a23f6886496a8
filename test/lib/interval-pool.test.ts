/**
 * The interval pool against the plain rule it stands for: a query hands over every interval still in the pool
 * that overlaps it, once (or a few at a time, as asked, the same query asked again for the rest), and
 * `restore` puts them all back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntervalPool, MAX_POINT } from '../../server/lib/interval-pool.ts';

const interval = fc
  .tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: -3, max: 20 }))
  .map(([start, length]) => [start, start + length] as const);
const query = fc
  .tuple(fc.integer({ min: 0, max: 70 }), fc.integer({ min: 0, max: 15 }))
  .map(([a, length]) => [a, a + length] as const);

/** What a query hands over: at once, or (`limit`) a few at a time, the query asked again while it says more. */
function taken(pool: IntervalPool, a: number, b: number, limit?: number): number[] {
  const owners: number[] = [];
  let asked = 0;
  for (;;) {
    const before = owners.length;
    const more = pool.take(a, b, (owner) => owners.push(owner), limit);
    asked++;
    if (limit !== undefined) expect(owners.length - before).toBeLessThanOrEqual(limit);
    if (!more) break;
  }
  if (limit === undefined) expect(asked).toBe(1);
  return owners.sort((x, y) => x - y);
}

describe('IntervalPool', () => {
  it('hands over each overlapping interval once, and all of them again after restore', () => {
    fc.assert(
      fc.property(
        fc.array(interval, { maxLength: 40 }),
        fc.array(query, { maxLength: 12 }),
        fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        (intervals, queries, limit) => {
          const pool = new IntervalPool(
            intervals.map(([s]) => s),
            intervals.map(([, e]) => e),
            intervals.map((_, i) => i),
          );
          expect(pool.size).toBe(intervals.filter(([s, e]) => e >= s).length);
          for (let round = 0; round < 2; round++) {
            const left = new Set(intervals.flatMap(([s, e], i) => (e >= s ? [i] : [])));
            for (const [a, b] of queries) {
              const expected = [...left].filter((i) => intervals[i]![0] <= b && intervals[i]![1] >= a);
              for (const i of expected) left.delete(i);
              expect(taken(pool, a, b, limit)).toEqual(expected.sort((x, y) => x - y));
            }
            pool.restore();
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a point it cannot sort by', () => {
    expect(() => new IntervalPool([MAX_POINT + 1], [MAX_POINT + 2], [0])).toThrow(RangeError);
    expect(() => new IntervalPool([-1], [2], [0])).toThrow(RangeError);
    expect(new IntervalPool([], [], []).size).toBe(0);
  });
});
