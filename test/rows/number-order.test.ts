/**
 * A column's number order (rows/number-order.ts): for any column of numbers (negative, fractional, huge, tiny,
 * -0), text, booleans and empty cells, each range's slice holds exactly the rows a plain comparison keeps, in
 * value order, equal numbers in sheet order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runNow } from '../../server/lib/steps.ts';
import { numberOrderSteps, numberRange } from '../../server/rows/number-order.ts';
import type { CellValue } from '../../server/sources/source.ts';

const cell: fc.Arbitrary<CellValue> = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -50, max: 50 }),
  fc.constantFrom(0, -0, 0.1, -0.1, 1e308, -1e308, 5e-324),
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.constant(null),
);

const OPS = ['<', '<=', '>', '>='] as const;
const holds = (y: number, op: (typeof OPS)[number], x: number) =>
  op === '<' ? y < x : op === '<=' ? y <= x : op === '>' ? y > x : y >= x;

describe('number order', () => {
  it('gives each range exactly the rows a comparison keeps, sorted, ties in sheet order', () => {
    fc.assert(
      fc.property(fc.array(cell, { maxLength: 300 }), cell, fc.constantFrom(...OPS), (column, probe, op) => {
        const typed = column.map((v) => ['x', v]);
        const order = runNow(numberOrderSteps(typed, 1));
        const numbers = column.flatMap((v, r) => (typeof v === 'number' ? [[v, r] as const] : []));
        const sorted = [...numbers].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        expect([...order.values]).toEqual(sorted.map(([v]) => (v === 0 ? 0 : v)));
        expect([...order.rows]).toEqual(sorted.map(([, r]) => r));
        const x = typeof probe === 'number' ? probe : 0;
        const [from, to] = numberRange(order, x, op);
        const kept = [...order.rows.slice(from, to)].sort((a, b) => a - b);
        expect(kept).toEqual(numbers.filter(([v]) => holds(v, op, x)).map(([, r]) => r));
      }),
      { numRuns: 500 },
    );
  });

  it('sorts a column larger than a step (several passes of yields) the same way', () => {
    const typed = Array.from({ length: 100_000 }, (_, r) => [((r * 7919) % 1000) - 500 + (r % 3) / 4]);
    const order = runNow(numberOrderSteps(typed, 0));
    for (let i = 1; i < order.values.length; i++) {
      expect(order.values[i - 1]! <= order.values[i]!).toBe(true);
      if (order.values[i - 1] === order.values[i]) expect(order.rows[i - 1]! < order.rows[i]!).toBe(true);
    }
    expect(order.values.length).toBe(100_000);
  });
});
