/**
 * RANK and RANK.EQ rank as Excel does (functions.ts `rankEq`): among the numbers of the range, text, logical
 * values and blanks ignored (a column's header among them), an error in the range given back, #N/A for a
 * number not in it. Formula.js's RANK.EQ answered #VALUE! for any range holding text, so `RANK(A2,A:A)` under a
 * header never computed. LibreOffice gives the same ranks for this column in descending order, and the error.
 */
import { describe, expect, it } from 'vitest';
import {
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';
import { formulaLibrary } from '../../../../server/sources/workbook/formulas/parser.ts';

/** Column A: a header, then 5, 3, blank, text, 9, 3, TRUE; column F: 1, #DIV/0!, 5. */
const A: unknown[] = ['Score', 5, 3, null, 'x', 9, 3, true];

function evaluator(formulas: Record<string, string>): WorkbookEvaluator {
  const { FormulaError } = formulaLibrary();
  const cells: SheetCells = {
    name: 'T',
    bottom: A.length,
    right: 6,
    value: (row, column) => {
      if (column === 1) return (A[row - 1] ?? null) as never;
      if (column === 6) return row === 2 ? new FormulaError('#DIV/0!') : ([1, null, 5][row - 1] ?? null);
      return null;
    },
    pending: (row, column) => formulas[`${String.fromCharCode(64 + column)}${row}`],
  };
  return new WorkbookEvaluator([cells], [], []);
}

describe('RANK', () => {
  it('ranks among the numbers of a column, its header and its text, blanks and logical values ignored', () => {
    const e = evaluator({
      B2: 'RANK(A2,A:A)',
      B3: 'RANK(A3,A:A)',
      B6: 'RANK.EQ(A6,A:A)',
      B7: '_xlfn.RANK.EQ(A7,A:A)',
    });
    expect(e.result('T', 2, 2)).toEqual({ kind: 'number', value: 2 });
    expect(e.result('T', 3, 2)).toEqual({ kind: 'number', value: 3 }); // ties share the higher rank
    expect(e.result('T', 6, 2)).toEqual({ kind: 'number', value: 1 });
    expect(e.result('T', 7, 2)).toEqual({ kind: 'number', value: 3 });
  });

  it('ranks in ascending order with an order other than 0', () => {
    const e = evaluator({ C2: 'RANK(A2,A:A,1)', C3: 'RANK(A3,A:A,1)', C6: 'RANK(A6,A:A,TRUE)' });
    expect(e.result('T', 2, 3)).toEqual({ kind: 'number', value: 3 });
    expect(e.result('T', 3, 3)).toEqual({ kind: 'number', value: 1 });
    expect(e.result('T', 6, 3)).toEqual({ kind: 'number', value: 4 });
  });

  it('gives #N/A for a number not in the range, and gives back an error in the range', () => {
    const e = evaluator({ D2: 'RANK(4,A:A)', E2: 'RANK(A2,F1:F3)', E3: 'RANK(5,F3:F3)' });
    expect(e.result('T', 2, 4)).toEqual({ kind: 'error', value: '#N/A' });
    expect(e.result('T', 2, 5)).toEqual({ kind: 'error', value: '#DIV/0!' });
    expect(e.result('T', 3, 5)).toEqual({ kind: 'number', value: 1 });
  });
});
