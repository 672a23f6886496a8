/**
 * VLOOKUP, HLOOKUP and XLOOKUP as Excel looks up (formulas/table-lookups.ts). The library's approximate match answered
 * the key past the last one instead of the table's cell, the row before a skipped one, and a one-row table's
 * key above the value; its exact match compared text with regard to case. LibreOffice agrees with these on
 * sorted tables (formula-criteria-libreoffice.test.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  type FormulaResult,
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';

/** Keys in A (sorted, with a text and a blank among the numbers), values in B, one row across D1:G2. */
const GRID: Record<string, unknown> = {
  A1: 0,
  B1: 'none',
  A2: 10,
  B2: 'low',
  A3: 'note',
  B3: 'skipped',
  A4: null,
  B4: 'blank key',
  A5: 20,
  B5: null,
  A6: 30,
  B6: 'high',
  C1: 100,
  C2: 200,
  C3: 300,
  C4: 400,
  C5: 500,
  C6: 600,
  D1: 'apple',
  E1: 'Banana',
  F1: 'cherry',
  G1: true,
  D2: 1,
  E2: 2,
  F2: 3,
  G2: 4,
};

function evaluate(formula: string): FormulaResult | undefined {
  const cells: SheetCells = {
    name: 'T',
    bottom: 6,
    right: 9,
    value: (row, column) => (GRID[`${String.fromCharCode(64 + column)}${row}`] ?? null) as never,
    pending: (row, column) => (row === 1 && column === 9 ? formula : undefined),
  };
  return new WorkbookEvaluator([cells], [], []).result('T', 1, 9);
}

const text = (value: string) => ({ kind: 'text', value });
const number = (value: number) => ({ kind: 'number', value });
const error = (value: string) => ({ kind: 'error', value });

describe('an approximate match', () => {
  it("answers the table's cell of the last key not above the value, past the last key too", () => {
    expect(evaluate('VLOOKUP(15,A1:B6,2,TRUE)')).toEqual(text('low'));
    expect(evaluate('VLOOKUP(99,A1:B6,2)')).toEqual(text('high')); // the library: 30, the key
    expect(evaluate('VLOOKUP(10,A1:B6,2,1)')).toEqual(text('low'));
  });

  it('skips keys of another kind and blanks, and answers a blank cell as 0', () => {
    expect(evaluate('VLOOKUP(25,A1:B6,2,TRUE)')).toEqual(number(0)); // B5, blank
    expect(evaluate('VLOOKUP("z",A1:B6,2,TRUE)')).toEqual(text('skipped')); // the one text key
  });

  it('gives #N/A below the first key, a one-row table included (the library gave the key)', () => {
    expect(evaluate('VLOOKUP(-1,A1:B6,2,TRUE)')).toEqual(error('#N/A'));
    expect(evaluate('VLOOKUP(5,A6:B6,2,TRUE)')).toEqual(error('#N/A'));
  });

  it('compares text without regard to case, and logical values with logical values', () => {
    expect(evaluate('HLOOKUP("BZ",D1:G2,2,TRUE)')).toEqual(number(2));
    expect(evaluate('HLOOKUP("zebra",D1:G2,2)')).toEqual(number(3));
    expect(evaluate('HLOOKUP(TRUE,D1:G2,2)')).toEqual(number(4));
  });
});

describe('an exact match', () => {
  it('finds text without regard to case, and numbers only as numbers', () => {
    expect(evaluate('HLOOKUP("BANANA",D1:G2,2,FALSE)')).toEqual(number(2));
    expect(evaluate('VLOOKUP("10",A1:B6,2,FALSE)')).toEqual(error('#N/A'));
    expect(evaluate('VLOOKUP(20,A1:B6,2,FALSE)')).toEqual(number(0));
  });

  it('reads `~` escapes and refuses a column past the table', () => {
    expect(evaluate('HLOOKUP("ch~*rry",D1:G2,2,FALSE)')).toEqual(error('#N/A'));
    expect(evaluate('HLOOKUP("~~",D1:G2,2,FALSE)')).toEqual(error('#N/A'));
    expect(evaluate('VLOOKUP(10,A1:B6,3,FALSE)')).toEqual(error('#REF!'));
    expect(evaluate('HLOOKUP("apple",D1:G2,3,FALSE)')).toEqual(error('#REF!'));
  });
});

describe('XLOOKUP', () => {
  it('finds exactly by default, text without regard to case, and answers "if not found" or #N/A', () => {
    expect(evaluate('XLOOKUP(20,A1:A6,C1:C6)')).toEqual(number(500));
    expect(evaluate('XLOOKUP("NOTE",A1:A6,B1:B6)')).toEqual(text('skipped'));
    expect(evaluate('XLOOKUP(15,A1:A6,B1:B6)')).toEqual(error('#N/A'));
    expect(evaluate('XLOOKUP(15,A1:A6,B1:B6,"none here")')).toEqual(text('none here'));
  });

  it('takes the next smaller (-1) or larger (1) key of the same kind when none is equal', () => {
    expect(evaluate('XLOOKUP(15,A1:A6,B1:B6,,-1)')).toEqual(text('low'));
    expect(evaluate('XLOOKUP(15,A1:A6,C1:C6,,1)')).toEqual(number(500));
    expect(evaluate('XLOOKUP(99,A1:A6,B1:B6,"past",1)')).toEqual(text('past'));
    expect(evaluate('XLOOKUP("BZ",D1:G1,D2:G2,,-1)')).toEqual(number(2));
  });

  it('matches wildcards in match mode 2 only, and searches from the last in search mode -1', () => {
    expect(evaluate('XLOOKUP("ch*",D1:G1,D2:G2,,2)')).toEqual(number(3));
    expect(evaluate('XLOOKUP("ch*",D1:G1,D2:G2)')).toEqual(error('#N/A'));
    expect(evaluate('XLOOKUP("*",A1:A6,C1:C6,,2,-1)')).toEqual(number(300));
    expect(evaluate('XLOOKUP(TRUE,D1:G1,D2:G2,,0,-1)')).toEqual(number(4));
  });

  it('answers the whole row of a wider return range, which SUM adds up', () => {
    expect(evaluate('XLOOKUP(10,A1:A6,B1:C6)')).toEqual(text('low'));
    expect(evaluate('SUM(XLOOKUP(30,A1:A6,A1:C6))')).toEqual(number(630));
  });

  it('refuses a two-dimensional lookup range, a return range of another length and an unknown mode', () => {
    expect(evaluate('XLOOKUP(10,A1:B6,C1:C6)')).toEqual(error('#VALUE!'));
    expect(evaluate('XLOOKUP(10,A1:A6,C1:C5)')).toEqual(error('#VALUE!'));
    expect(evaluate('XLOOKUP(10,A1:A6,C1:C6,,3)')).toEqual(error('#VALUE!'));
    expect(evaluate('XLOOKUP(10,A1:A6,C1:C6,,0,0)')).toEqual(error('#VALUE!'));
  });
});
