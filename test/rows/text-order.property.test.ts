/**
 * What sorting a million texts rests on: a text's plain key (collation.ts `sortKey`) orders as the collation
 * does, and the paced merge sort (lib/sort-steps.ts) orders as a stable sort does, yielding on the way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedIndexSteps } from '../../server/lib/sort-steps.ts';
import { STEP_ROWS } from '../../server/lib/steps.ts';
import { compareFolded, foldText, sortKey } from '../../server/rows/collation.ts';

/** Printable ASCII with digits and zeros over-represented, and now and then a character no key spells. */
const text = fc
  .array(
    fc.oneof(
      fc.constantFrom('0', '0', '1', '9', ' ', '.', '-'),
      fc.string({ maxLength: 1 }),
      fc.constantFrom('é', '\t', 'ж'),
    ),
    {
      maxLength: 10,
    },
  )
  .map((parts) => foldText(parts.join('')));

const sign = (x: number) => (x < 0 ? -1 : x > 0 ? 1 : 0);

describe('text order', () => {
  it('orders texts by their keys as the collation orders them', () => {
    let keyed = 0;
    fc.assert(
      fc.property(text, text, (a, b) => {
        const ka = sortKey(a);
        const kb = sortKey(b);
        if (ka === null || kb === null) return;
        keyed++;
        expect(sign(ka < kb ? -1 : ka > kb ? 1 : 0)).toBe(sign(compareFolded(a, b)));
      }),
      { numRuns: 5000 },
    );
    expect(keyed).toBeGreaterThan(500); // the keys were compared, not skipped
    // Digits by value, leading zeros ignored; text outside printable ASCII has no key.
    expect(sortKey('item2')! < sortKey('item10')!).toBe(true);
    expect(sortKey('a007')).toBe(sortKey('a7'));
    expect(sortKey('zoë')).toBeNull();
    expect(sortKey('a\tb')).toBeNull();
  });

  it('sorts indices as a stable sort does', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }), (values) => {
        const compare = (a: number, b: number) => values[a]! - values[b]!;
        const expected = values.map((_, i) => i).sort((a, b) => compare(a, b) || a - b);
        const steps = sortedIndexSteps(values.length, compare);
        let step = steps.next();
        while (!step.done) step = steps.next();
        expect([...step.value]).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('yields while it sorts more than a step of items', () => {
    const n = STEP_ROWS * 2 + 5;
    const values = Array.from({ length: n }, (_, i) => (i * 7919) % n);
    const steps = sortedIndexSteps(n, (a, b) => values[a]! - values[b]!);
    let yields = 0;
    let step = steps.next();
    while (!step.done) {
      yields++;
      step = steps.next();
    }
    expect(yields).toBeGreaterThan(n / STEP_ROWS); // at least one a step's worth of placed items, every pass
    const sorted = step.value;
    for (let i = 1; i < n; i++) expect(values[sorted[i - 1]!]! <= values[sorted[i]!]!).toBe(true);
  });
});
