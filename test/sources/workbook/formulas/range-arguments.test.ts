/**
 * Calls given whole ranges where the libraries did quadratic work (or worse), over 20,000-row columns: MATCH of a
 * range (Formula.js compared each cell with the whole array written as text: 26 s), TEXTJOIN with a range of
 * delimiters (12 s), FREQUENCY (every number with every bin), and a function of one value called per cell with
 * an argument too few, whose error `require`d a module at every cell. This file times out on that code; the
 * answers are checked against a count made here.
 */
import { describe, expect, it } from 'vitest';
import {
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';

const ROWS = 20_000;
const a = (row: number) => (row * 7919) % 1000;
const b = (row: number) => (row % 97) / 7;

/** Column A: whole numbers 0-999, B: sevenths, C: texts; the formula in D1. */
function compute(formula: string) {
  const cells: SheetCells = {
    name: 'T',
    bottom: ROWS,
    right: 4,
    value: (row, column) =>
      column === 1 ? a(row) : column === 2 ? b(row) : column === 3 ? `t${row % 500}` : null,
    pending: (row, column) => (row === 1 && column === 4 ? formula : undefined),
  };
  return new WorkbookEvaluator([cells], [], []).result('T', 1, 4);
}

const rows = Array.from({ length: ROWS - 1 }, (_, i) => i + 2);

describe('whole ranges where one value or a list is wanted', () => {
  it('MATCH of a range looks up its first cell', () => {
    expect(compute(`MATCH(A2:A${ROWS},A2:A${ROWS},0)`)).toEqual({ kind: 'number', value: 1 });
    expect(compute(`MATCH(C2:C${ROWS},C2:C${ROWS},0)`)).toEqual({ kind: 'number', value: 1 });
  });

  it('TEXTJOIN takes a range of delimiters in turn', () => {
    const joined = compute(`TEXTJOIN(C2:C${ROWS},TRUE,A2:A50)`) as { value: string };
    const expected = rows
      .slice(0, 49)
      .map((row, i) => (i === 0 ? `${a(row)}` : `t${(i + 1) % 500}${a(row)}`))
      .join('');
    expect(joined.value).toBe(expected);
    expect(compute(`TEXTJOIN("",TRUE,C2:C${ROWS})`)).toEqual({ kind: 'error', value: '#VALUE!' }); // past 32,767
  });

  it('FREQUENCY counts each number in its bin, the first of equal bins taking it', () => {
    const bins = rows.map(b);
    const sorted = [...new Set(bins)].sort((x, y) => x - y);
    const smallest = sorted[0]!;
    const first = bins.indexOf(smallest);
    // Whole numbers up to the smallest bin (0): the 0s, counted in the first bin of value 0, not the first bin.
    const zeros = rows.filter((row) => a(row) <= smallest).length;
    expect(compute(`INDEX(FREQUENCY(A2:A${ROWS},B2:B${ROWS}),${first + 1})`)).toEqual({
      kind: 'number',
      value: zeros,
    });
    expect(compute(`INDEX(FREQUENCY(A2:A${ROWS},B2:B${ROWS}),1)`)).toEqual({
      kind: 'number',
      value: rows.filter((row) => a(row) > 1 / 7 && a(row) <= 2 / 7).length,
    });
    const above = rows.filter((row) => a(row) > sorted.at(-1)!).length;
    expect(compute(`INDEX(FREQUENCY(A2:A${ROWS},B2:B${ROWS}),${ROWS})`)).toEqual({
      kind: 'number',
      value: above,
    });
    expect(compute(`SUM(FREQUENCY(A2:A${ROWS},B2:B${ROWS}))`)).toEqual({ kind: 'number', value: ROWS - 1 });
  });

  it('a function of one value with an argument too few answers for every cell', () => {
    expect(compute(`SUMPRODUCT(DATE(A2:A${ROWS},B2:B${ROWS}))`)).toEqual({ kind: 'error', value: '#N/A' });
    expect(compute(`SUMPRODUCT(MOD(A2:A${ROWS}))`)).toEqual({ kind: 'error', value: '#N/A' });
  });
});
