/**
 * Functions whose work grows with a count a cell holds answer such a count at once, as Excel bounds it: a base
 * conversion's places (at most 10, formulas/functions.ts) and MUNIT's size (at most 1,024 here). The library
 * padded one "0" at a time for any number of places, and made all n² cells of a unit matrix; a count written into
 * a cell through the API held the service's thread without end or took more memory than it has. (REPT and the
 * working-day functions: text-functions.test.ts, workday-functions.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { evaluateBesideA1 as evaluate } from './one-cell.ts';

const NUM = { kind: 'error', value: '#NUM!' };

describe('counts from cells', () => {
  it.each([
    'BIN2HEX("1",A1)',
    'BIN2OCT("1",A1)',
    'DEC2BIN(1,A1)',
    'DEC2HEX(1,A1)',
    'DEC2OCT(1,A1)',
    'HEX2BIN("1",A1)',
    'HEX2OCT("1",A1)',
    'OCT2BIN("1",A1)',
    'OCT2HEX("1",A1)',
  ])('%s: #NUM! past 10 places, padded up to them', (formula) => {
    expect(evaluate(formula, 1e12)).toEqual(NUM);
    expect(evaluate(formula, 11)).toEqual(NUM);
    expect(evaluate(formula, 10)).toEqual({ kind: 'text', value: '0000000001' });
  });

  it('MUNIT: #NUM! past 1,024, the matrix made below', () => {
    expect(evaluate('MUNIT(A1)', 1e5)).toEqual(NUM);
    expect(evaluate('SUM(MUNIT(A1))', 1024)).toEqual({ kind: 'number', value: 1024 });
  });
});
