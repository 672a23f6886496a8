/**
 * Defined names of one to three letters (`Qty`, `Tax`), which fast-formula-parser reads as a column letter and
 * answered 0 for: spelled out as their definition before the parse (formulas/formula-text.ts `spellNames`),
 * only where the word stands alone as a name would.
 */
import { describe, expect, it } from 'vitest';
import {
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';
import { spellNames } from '../../../../server/sources/workbook/formulas/formula-text.ts';

const spell = (formula: string) =>
  spellNames(formula, (word) => (word.toLowerCase() === 'tax' ? '(Rates!$B$1)' : undefined));

describe('spellNames', () => {
  it('spells a short name standing alone, whatever its case', () => {
    expect(spell('A2*Tax')).toBe('A2*(Rates!$B$1)');
    expect(spell('SUM(A2,TAX,tax)')).toBe('SUM(A2,(Rates!$B$1),(Rates!$B$1))');
  });
  it('leaves strings, quoted sheet names, functions, columns and sheets alone', () => {
    expect(spell('"Tax"&A2')).toBe('"Tax"&A2');
    expect(spell("'Tax year'!A1+'My Tax'!B2")).toBe("'Tax year'!A1+'My Tax'!B2");
    expect(spell('TAX(1)+Tax!A1+SUM(Tax:Tax)+$Tax+Taxes')).toBe('TAX(1)+Tax!A1+SUM(Tax:Tax)+$Tax+Taxes');
    expect(spell('Tbl[Tax]+Tax2')).toBe('Tbl[Tax]+Tax2');
  });
  it('leaves a formula as written when spelling it would pass 65,536 characters', () => {
    const long = (word: string) => (word === 'Big' ? `(${'1+'.repeat(5_000)}1)` : undefined);
    expect(spellNames('Big+Big', long)).toBe(`(${'1+'.repeat(5_000)}1)+(${'1+'.repeat(5_000)}1)`);
    const many = Array.from({ length: 7 }, () => 'Big').join('+');
    expect(spellNames(many, long)).toBe(many);
  });
});

describe('a short name in a formula', () => {
  it('reads its definition: a cell, a range (one cell a row) and a constant', () => {
    const cells: SheetCells = {
      name: 'T',
      bottom: 4,
      right: 3,
      value: (row, column) => (column === 1 ? row * 10 : null) as never,
      pending: (row, column) =>
        column === 3 ? ['Fee+1', 'Qty*2', 'SUMPRODUCT(Qty)', 'VAT*100'][row - 1] : undefined,
    };
    const names = [
      { name: 'Fee', formula: 'T!$A$1' },
      { name: 'Qty', formula: 'T!$A$1:$A$4' },
      { name: 'VAT', formula: '0.2' },
    ];
    const e = new WorkbookEvaluator([cells], names, []);
    expect([1, 2, 3, 4].map((row) => e.result('T', row, 3)?.value)).toEqual([11, 40, 100, 20]);
  });
});

describe('OFFSET', () => {
  it('is #REF! past the edge of the sheet, as Excel documents, and #VALUE! for a count that is not a number', () => {
    const cells: SheetCells = {
      name: 'T',
      bottom: 3,
      right: 2,
      value: (row, column) => (column === 1 ? row : null) as never,
      pending: (row, column) =>
        column === 2 ? ['OFFSET(A1,-1,0)', 'OFFSET(A1,0,16384)', 'OFFSET(A1,"x",0)'][row - 1] : undefined,
    };
    const e = new WorkbookEvaluator([cells], [], []);
    expect([1, 2, 3].map((row) => e.result('T', row, 2)?.value)).toEqual(['#REF!', '#REF!', '#VALUE!']);
  });
});
