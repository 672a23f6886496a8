/**
 * What one formula may read and make (formulas/cell-budget.ts), with small budgets so each case is a few cells:
 * past it the formula is not computed, whatever a function would have made of the failure; formulas it computes
 * within itself spend from its budget and are computed again with their own when asked for; MMULT is counted
 * before it makes its answer. (The default budget over HTTP on a file: formula-cell-budget.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import {
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';

/** A tab of 100 rows: A and B hold the row's number, C1:C3 the formulas of `formulas`, and D1 one more. */
function evaluator(formulas: Record<string, string>, cellBudget: number): WorkbookEvaluator {
  const cells: SheetCells = {
    name: 'T',
    bottom: 100,
    right: 4,
    value: (row, column) => (column <= 2 ? row : null) as never,
    pending: (row, column) => formulas[`${'ABCD'[column - 1]}${row}`],
  };
  return new WorkbookEvaluator([cells], [], [], { cellBudget });
}

// A range of n rows of one column costs n * 9 (a cell and its row's array); so does an operator's answer.
const SUM_OF_PRODUCTS = 'SUMPRODUCT(A1:A10*B1:B10)'; // two ranges and one answer of 10 rows: 270
const squares = 385;

describe('one formula', () => {
  it('is computed within its budget and not computed past it', () => {
    expect(evaluator({ C1: SUM_OF_PRODUCTS }, 270).result('T', 1, 3)).toEqual({
      kind: 'number',
      value: squares,
    });
    expect(evaluator({ C1: SUM_OF_PRODUCTS }, 269).result('T', 1, 3)).toBeUndefined();
  });

  it('is not computed when a function would take the failure as a value', () => {
    const e = evaluator({ C1: `IFERROR(${SUM_OF_PRODUCTS},0)`, C2: `ISERROR(${SUM_OF_PRODUCTS})` }, 100);
    expect(e.result('T', 1, 3)).toBeUndefined();
    expect(e.result('T', 2, 3)).toBeUndefined();
  });

  it('counts the array MMULT makes before it makes it: a column by a row', () => {
    // 10 rows by 10 columns: 10 * (10 + 8) = 180 for the answer, beside 90 and 18 for the two ranges read.
    const formula = 'SUM(MMULT(A1:A10,TRANSPOSE(B1:B10)))';
    expect(evaluator({ C1: formula }, 1_000).result('T', 1, 3)).toEqual({ kind: 'number', value: 55 * 55 });
    expect(evaluator({ C1: formula }, 200).result('T', 1, 3)).toBeUndefined();
  });
});

describe('formulas computed within another', () => {
  it('spend from its budget, and are computed with their own when asked for', () => {
    // D1 reads C1 and C2, each 270: together past 400, alone within it.
    const e = evaluator({ C1: SUM_OF_PRODUCTS, C2: SUM_OF_PRODUCTS, D1: 'C1+C2' }, 400);
    expect(e.result('T', 1, 4)).toBeUndefined();
    expect(e.result('T', 2, 3)).toEqual({ kind: 'number', value: squares });
    expect(e.result('T', 1, 3)).toEqual({ kind: 'number', value: squares });
    // D1 itself stays as it was answered: it needed more than its budget.
    expect(e.result('T', 1, 4)).toBeUndefined();
  });

  it('read a result kept before as a value, at no cost', () => {
    const e = evaluator({ C1: SUM_OF_PRODUCTS, C2: SUM_OF_PRODUCTS, D1: 'C1+C2' }, 400);
    expect(e.result('T', 1, 3)).toEqual({ kind: 'number', value: squares });
    expect(e.result('T', 2, 3)).toEqual({ kind: 'number', value: squares });
    expect(e.result('T', 1, 4)).toEqual({ kind: 'number', value: 2 * squares });
  });
});
