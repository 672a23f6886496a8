/**
 * Functions whose work grows with one of their numbers answer #NUM! past a bound (formulas/argument-bounds.ts),
 * whichever way the number comes: written in the formula, read from a cell written through the API, or the first
 * cell of a range. Before, `CRITBINOM(A1,0.5,0.999)` with A1 at 10^9 held the thread for 124 s, `POISSON` 23 s and
 * `DB` 21 s (this file would time out on that code). Below the bounds they compute as before.
 */
import { describe, expect, it } from 'vitest';
import { evaluateBesideA1 as evaluate } from './one-cell.ts';

const NUM = { kind: 'error', value: '#NUM!' };

describe('a count past its bound', () => {
  it('is #NUM! at once, in the old names and the new', () => {
    for (const formula of [
      'CRITBINOM(A1,0.5,0.999)',
      'BINOM.INV(A1,0.5,0.999)',
      'POISSON(A1,A1,TRUE)',
      'POISSON.DIST(A1,A1,TRUE)',
      'NEGBINOM.DIST(A1,A1,0.5,TRUE)',
      'NEGBINOMDIST(A1,A1,0.5)',
      'DB(1000,10,A1,A1)',
      'DDB(1000,10,A1,A1)',
      'GAMMAINV(0.5,A1,1)',
      'GAMMA.INV(0.5,A1,1)',
      'CHISQ.INV(0.5,A1)',
      'CHISQ.INV.RT(1E-9,A1)',
      'CHIINV(1E-9,A1)',
      'CHISQ.DIST(1,A1,TRUE)',
      'CHIDIST(1,A1)',
      'GAMMA.DIST(1,A1,0.5,TRUE)',
      'GAMMADIST(1,A1,0.5,TRUE)',
      'BESSELJ(1,A1)',
      'BESSELI(1,A1)',
      'BESSELK(1,A1)',
      'BESSELY(1,A1)',
      'CRITBINOM(A1:A1,0.5,0.999)',
      'CRITBINOM(1E9,0.5,0.999)',
    ]) {
      expect(evaluate(formula, 1e9), formula).toEqual(NUM);
    }
  });

  it('leaves the call as it was below the bound', () => {
    expect(evaluate('CRITBINOM(A1,0.5,0.5)', 10)).toEqual({ kind: 'number', value: 5 });
    expect(evaluate('DB(1000000,100000,6,1,7)')).toEqual({ kind: 'number', value: 186083.333333333 });
    const poisson = evaluate('POISSON(2,5,TRUE)') as { value: number };
    expect(poisson.value).toBeCloseTo(0.124652019, 8);
    expect(evaluate('BESSELJ(A1,1)', 1e9)).toEqual(evaluate('BESSELJ(1000000000,1)'));
  });
});
