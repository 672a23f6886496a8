/**
 * A formula that is only a reference to a cell holding an error gives that error, as Excel does (`=Ledger!B40`
 * below a deleted row reads #REF!, `=A2` of a #DIV/0! reads #DIV/0!), on its tab or another, whether the cell read
 * is a formula computed here or a value of the file. The library alone answered #VALUE!.
 */
import { describe, expect, it } from 'vitest';
import {
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';
import { formulaLibrary } from '../../../../server/sources/workbook/formulas/parser.ts';

function tab(
  name: string,
  formulas: Record<string, string>,
  value: SheetCells['value'] = () => null,
): SheetCells {
  const at = (row: number, column: number) => `${String.fromCharCode(64 + column)}${row}`;
  return { name, bottom: 3, right: 3, value, pending: (row, column) => formulas[at(row, column)] };
}

describe('a formula that is only a reference', () => {
  it.each([
    ['1/0', '#DIV/0!'],
    ['#REF!+1', '#REF!'],
    ['NA()', '#N/A'],
  ])('to a formula giving an error (%s) gives that error', (formula, error) => {
    const evaluator = new WorkbookEvaluator(
      [tab('S', { B2: 'T!B2', C2: 'C3', C3: formula }), tab('T', { B2: formula })],
      [],
      [],
    );
    expect(evaluator.result('S', 2, 2)).toEqual({ kind: 'error', value: error });
    expect(evaluator.result('S', 2, 3)).toEqual({ kind: 'error', value: error });
  });

  it('to a cell of the file holding an error gives that error; to a value or a range, as before', () => {
    const { FormulaError } = formulaLibrary();
    const values = tab('T', {}, (row, column) =>
      row === 2 && column === 1 ? new FormulaError('#NUM!') : row,
    );
    const evaluator = new WorkbookEvaluator(
      [tab('S', { A1: 'T!A2', B1: 'T!B3', C1: 'SUM(T!B1:B3)' }), values],
      [],
      [],
    );
    expect(evaluator.result('S', 1, 1)).toEqual({ kind: 'error', value: '#NUM!' });
    expect(evaluator.result('S', 1, 2)).toEqual({ kind: 'number', value: 3 });
    expect(evaluator.result('S', 1, 3)).toEqual({ kind: 'number', value: 6 });
  });
});
