/**
 * Functions of one value given a range or an array, where LibreOffice cannot be the reference
 * (formula-lifted-libreoffice.test.ts compares the rest): the Analysis ToolPak's functions, which Excel takes
 * cell by cell over an array but refuses a range, IFNA over an array, and ISBLANK and ISNONTEXT of the blank
 * cells of a range (the library took a blank it was given as an omitted argument).
 */
import { describe, expect, it } from 'vitest';
import {
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';

/** A1:A4 hold 1, 2, blank and "x"; the formula is in B1. */
function value(formula: string): unknown {
  const column = [1, 2, null, 'x'];
  const cells: SheetCells = {
    name: 'T',
    bottom: 4,
    right: 2,
    value: (row, c) => (c === 1 ? (column[row - 1] ?? null) : null) as never,
    pending: (row, c) => (row === 1 && c === 2 ? formula : undefined),
  };
  return new WorkbookEvaluator([cells], [], []).result('T', 1, 2)?.value;
}

describe("the Analysis ToolPak's functions", () => {
  it('take each cell of an array, and refuse a range', () => {
    expect(value('SUMPRODUCT(EDATE(45000,A1:A2+0))')).toBe(45031 + 45061);
    expect(value('SUMPRODUCT(EDATE(45000,A1:A2))')).toBe('#VALUE!');
    expect(value('SUMPRODUCT(EOMONTH(45000,A1:A2*1))')).toBe(45046 + 45077);
    expect(value('SUMPRODUCT(MROUND(A1:A2*10,4))')).toBe(12 + 20);
    expect(value('SUMPRODUCT(QUOTIENT(A1:A2,2))')).toBe('#VALUE!');
    expect(value('EDATE(45000,A2)')).toBe(45061);
  });
});

describe('information functions over a range', () => {
  it('ISBLANK and ISNONTEXT see its blank cells', () => {
    expect(value('SUMPRODUCT(--ISBLANK(A1:A4))')).toBe(1);
    expect(value('SUMPRODUCT(--ISBLANK(A1:A6))')).toBe(3);
    expect(value('SUMPRODUCT(--ISNONTEXT(A1:A4))')).toBe(3);
    expect(value('ISBLANK(A3)')).toBe(true);
  });
  it('ISODD and ISEVEN read numbers, and refuse text', () => {
    expect(value('SUMPRODUCT(--ISODD(A1:A2))')).toBe(1);
    expect(value('ISODD(-3)')).toBe(true);
    expect(value('ISODD("x")')).toBe('#VALUE!');
    expect(value('SUMPRODUCT(--ISEVEN(A1:A2))')).toBe(1);
  });
  it('IFNA answers each #N/A of an array and leaves other errors', () => {
    expect(value('SUMPRODUCT(IFNA({1,2,3}+{1,2},10))')).toBe(2 + 4 + 10);
    expect(value('SUMPRODUCT(IFNA(1/(A1:A2-1),0))')).toBe('#DIV/0!');
  });
});
