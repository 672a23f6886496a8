/**
 * Counts in words (lib/quantity.ts): `grouped` writes a whole number as en-US's `toLocaleString` does, for any
 * safe integer, without that call's first-use cost.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { grouped, quantity } from '../../server/lib/quantity.ts';

describe('grouped', () => {
  it('writes any safe integer as en-US does', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        expect(grouped(n)).toBe(n.toLocaleString('en-US'));
      }),
      { numRuns: 2000 },
    );
    for (const n of [0, 7, 999, 1000, 65_535, 1_048_576, -1_000, 100_000])
      expect(grouped(n)).toBe(n.toLocaleString('en-US'));
  });
});

describe('quantity', () => {
  it('puts the noun in the right number', () => {
    expect(quantity(1, 'row')).toBe('1 row');
    expect(quantity(0, 'row')).toBe('0 rows');
    expect(quantity(2, 'index', 'indexes')).toBe('2 indexes');
  });
});
