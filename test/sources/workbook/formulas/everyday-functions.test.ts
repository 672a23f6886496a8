/**
 * Rounding, FIXED and DOLLAR (formulas/rounding-functions.ts), TIME, HOUR, MINUTE, SECOND and EDATE
 * (time-functions.ts), SUBTOTAL (subtotal.ts), numbers read as text, COUNTA, AVERAGE and the statistical functions
 * the parser had as stubs, as Excel answers them. LibreOffice agrees on the rest
 * (formula-everyday-libreoffice.test.ts); here are also the answers where it is not Excel.
 */
import { describe, expect, it } from 'vitest';
import {
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';
import { evaluateBesideA1 as evaluate } from './one-cell.ts';

const number = (value: number) => ({ kind: 'number', value });
const text = (value: string) => ({ kind: 'text', value });
const error = (value: string) => ({ kind: 'error', value });

describe('ROUND, ROUNDUP, ROUNDDOWN', () => {
  it('round the number as it shows, away from zero at a half (the library multiplied: 0.285 gave 0.28)', () => {
    expect(evaluate('ROUND(0.285,2)')).toEqual(number(0.29));
    expect(evaluate('ROUND(1.005,2)')).toEqual(number(1.01));
    expect(evaluate('ROUND(-2.5,0)')).toEqual(number(-3));
    expect(evaluate('ROUNDDOWN(0.3*3,1)')).toEqual(number(0.9));
    expect(evaluate('ROUNDUP(-2.1,0)')).toEqual(number(-3));
    expect(evaluate('ROUND(-1234.5678,-2)')).toEqual(number(-1200));
    expect(evaluate('ROUND(A1,1)', '2.25')).toEqual(number(2.3));
  });

  it('take any count of digits without overflowing', () => {
    expect(evaluate('ROUND(1.5,400)')).toEqual(number(1.5));
    expect(evaluate('ROUND(123,-400)')).toEqual(number(0));
    expect(evaluate('ROUNDUP(123,-5)')).toEqual(number(100000));
    expect(evaluate('ROUND(A1,0)', 'x')).toEqual(error('#VALUE!'));
  });
});

describe('FIXED and DOLLAR', () => {
  it('write no decimals and negative decimals (the library wrote "($.)" or nothing)', () => {
    expect(evaluate('FIXED(-1234.567,-1)')).toEqual(text('-1,230'));
    expect(evaluate('FIXED(-1234.567,-1,TRUE)')).toEqual(text('-1230'));
    expect(evaluate('FIXED(1234567.891)')).toEqual(text('1,234,567.89'));
    expect(evaluate('FIXED(-0.001,2)')).toEqual(text('0.00'));
    expect(evaluate('DOLLAR(-1234.567,-2)')).toEqual(text('($1,200)')); // Excel's own example
    expect(evaluate('DOLLAR(-0.5,0)')).toEqual(text('($1)'));
    expect(evaluate('DOLLAR(1234.567)')).toEqual(text('$1,234.57'));
    expect(evaluate('FIXED(1,128)')).toEqual(error('#VALUE!'));
  });
});

describe('TIME, HOUR, MINUTE, SECOND', () => {
  it('TIME is a time of day: past 24 hours the time it then is, a negative total #NUM!', () => {
    expect(evaluate('TIME(25,70,0)')).toEqual(number(Number((7800 / 86400).toPrecision(15)))); // 02:10
    expect(evaluate('TIME(0,-30,3600)')).toEqual(number(Number((1800 / 86400).toPrecision(15))));
    expect(evaluate('TIME(-1,0,0)')).toEqual(error('#NUM!'));
    expect(evaluate('TIME(0,0,32768)')).toEqual(error('#NUM!'));
  });

  it('HOUR, MINUTE and SECOND round to the nearest second, within the day', () => {
    expect(evaluate('SECOND(0.50001)')).toEqual(number(1));
    expect(evaluate('MINUTE("13:45")')).toEqual(number(45));
    expect(evaluate('HOUR(A1)', 45000.75)).toEqual(number(18));
    expect(evaluate('HOUR(0.99999999)')).toEqual(number(23));
    expect(evaluate('HOUR(-1)')).toEqual(error('#NUM!'));
  });
});

describe('EDATE', () => {
  it("keeps the day, or takes the month's last (the library went on into the next month)", () => {
    expect(evaluate('EDATE("2024-01-31",1)')).toEqual(number(45351)); // 2024-02-29
    expect(evaluate('EDATE(DATE(2024,3,31),-1)')).toEqual(number(45351));
    expect(evaluate('EDATE(DATE(2023,1,29),13)')).toEqual(number(45351));
    expect(evaluate('EDATE(45000.9,0)')).toEqual(number(45000));
  });

  it("refuses what is no date and a result outside Excel's days", () => {
    expect(evaluate('EDATE(A1,1)', 'x')).toEqual(error('#VALUE!'));
    expect(evaluate('EDATE(TRUE,1)')).toEqual(error('#VALUE!'));
    expect(evaluate('EDATE(100,-30000)')).toEqual(error('#NUM!')); // a year below 100 is not read as 19xx
    expect(evaluate('EDATE(2958465,1)')).toEqual(error('#NUM!'));
  });
});

describe('numbers written as Excel reads them', () => {
  it('takes an exponent without its sign and a number that starts at its point (the parser read neither)', () => {
    expect(evaluate('A1*1E3', 2)).toEqual(number(2000));
    expect(evaluate('1e-3+0')).toEqual(number(0.001));
    expect(evaluate('SUM(.1,.2)')).toEqual(number(0.3));
    expect(evaluate('-.25*A1', 4)).toEqual(number(-1));
    expect(evaluate('"1E3"&".5"')).toEqual(text('1E3.5')); // text is left as written
  });
});

describe('numbers as text, counts and means', () => {
  it('a number given to a text function is written with 15 significant digits', () => {
    expect(evaluate('LEN(1/3)')).toEqual(number(17));
    expect(evaluate('LEFT(A1,4)', 0.1 + 0.2)).toEqual(text('0.3'));
  });

  it('COUNTA counts empty text, AVERAGE of no numbers is #DIV/0!', () => {
    expect(evaluate('COUNTA(1,"",A1)')).toEqual(number(2));
    expect(evaluate('AVERAGE(A1)', 'x')).toEqual(error('#DIV/0!'));
  });

  it('computes the statistical functions the parser had as stubs', () => {
    expect(evaluate('PERMUT(5,2)')).toEqual(number(20));
    expect(evaluate('PERMUTATIONA(3,2)')).toEqual(number(9));
    expect(evaluate('RANK.AVG(3,{1,3,3,5})')).toEqual(number(2.5));
    expect(evaluate('RANK.AVG(4,{1,3,3,5})')).toEqual(error('#N/A'));
    expect(evaluate('PERCENTRANK.INC({1,2,3,4},3)')).toEqual(number(0.666));
  });
});

describe('TRUNC, CEILING.MATH, FLOOR.MATH, YEARFRAC', () => {
  it('TRUNC keeps its digits; a negative number goes toward zero unless a mode says otherwise', () => {
    expect(evaluate('TRUNC(1.23456,3)')).toEqual(number(1.234));
    expect(evaluate('TRUNC(-8.96,1)')).toEqual(number(-8.9));
    expect(evaluate('_xlfn.CEILING.MATH(-2.5)')).toEqual(number(-2));
    expect(evaluate('_xlfn.CEILING.MATH(-2.5,1,1)')).toEqual(number(-3));
    expect(evaluate('_xlfn.FLOOR.MATH(-2.5)')).toEqual(number(-3));
    expect(evaluate('_xlfn.FLOOR.MATH(-2.5,1,1)')).toEqual(number(-2));
    expect(evaluate('_xlfn.CEILING.MATH(1.1,0.1)')).toEqual(number(1.1));
    expect(evaluate('_xlfn.CEILING.MATH(5,0)')).toEqual(number(0));
  });

  it('YEARFRAC counts as Excel does in each basis, and refuses another', () => {
    expect(evaluate('YEARFRAC(DATE(2024,1,15),DATE(2024,3,31),4)')).toEqual(
      number(Number((75 / 360).toPrecision(15))),
    );
    expect(evaluate('YEARFRAC(DATE(2024,1,31),DATE(2024,3,31),0)')).toEqual(
      number(Number((60 / 360).toPrecision(15))),
    );
    expect(evaluate('YEARFRAC(DATE(2024,1,1),DATE(2024,7,1),1)')).toEqual(
      number(Number((182 / 366).toPrecision(15))),
    );
    expect(evaluate('YEARFRAC(DATE(2024,3,31),DATE(2024,1,15))')).toEqual(
      evaluate('YEARFRAC(DATE(2024,1,15),DATE(2024,3,31))'),
    );
    expect(evaluate('YEARFRAC(1,2,5)')).toEqual(error('#NUM!'));
    expect(evaluate('YEARFRAC("x",2)')).toEqual(error('#VALUE!'));
  });
});

describe('the old names of the statistical functions', () => {
  const close = (formula: string, expected: number) => {
    const result = evaluate(formula) as { kind: string; value: number };
    expect(result.kind, formula).toBe('number');
    expect(result.value, formula).toBeCloseTo(expected, 7); // Formula.js's series: about ten digits
  };

  it('are the functions Excel renamed them to, an argument added where the new one takes more', () => {
    close('NORMDIST(1,0,1,TRUE)', 0.841344746068543);
    close('NORMSDIST(1)', 0.841344746068543);
    close('NORMSINV(0.975)', 1.95996398454005);
    close('LOGNORMDIST(2,0,1)', 0.755891404214417);
    close('HYPGEOMDIST(1,4,8,20)', 0.363261093911249);
    close('BETADIST(2,8,10,1,3)', 0.685470581054688);
    close('CHIDIST(3,4)', 0.557825400371075);
    close('BINOMDIST(3,10,0.5,FALSE)', 0.1171875);
    close('STDEV(1,2,3,4)', 1.29099444873581);
    expect(evaluate('RANK(20,{10,20,30})')).toEqual(number(2));
  });

  it('TDIST takes one or two tails, and refuses a negative x or other tails', () => {
    close('TDIST(1,5,1)', 0.181608733824561);
    close('TDIST(1,5,2)', 0.363217467649123);
    close('TINV(0.05,10)', 2.22813885198628);
    expect(evaluate('TDIST(-1,5,1)')).toEqual(error('#NUM!'));
    expect(evaluate('TDIST(1,5,3)')).toEqual(error('#NUM!'));
    expect(evaluate('TDIST(1,5)')).toEqual(error('#VALUE!'));
  });
});

describe('SUBTOTAL', () => {
  /** Column A: 1, 2, a subtotal of them, 4; B1 the formula; A3's result cached (`cachedA3`) or computed here. */
  const grandTotal = (formula: string, cachedA3: boolean) => {
    const values: (number | null)[] = [1, 2, cachedA3 ? 3 : null, 4];
    const formulas: Record<string, string> = { '3,1': 'SUBTOTAL(9,A1:A2)', '1,2': formula };
    const cells: SheetCells = {
      name: 'T',
      bottom: 4,
      right: 2,
      value: (row, column) => (column === 1 ? (values[row - 1] ?? null) : null),
      pending: (row, column) =>
        row === 1 && column === 2 ? formula : !cachedA3 ? formulas[`${row},${column}`] : undefined,
      formula: (row, column) => formulas[`${row},${column}`],
    };
    return new WorkbookEvaluator([cells], [], []).result('T', 1, 2);
  };

  it('leaves out the subtotals inside its range, whether computed here or cached in the file', () => {
    for (const cached of [false, true]) {
      expect(grandTotal('SUBTOTAL(9,A1:A4)', cached)).toEqual(number(7));
      expect(grandTotal('SUBTOTAL(109,A1:A4)', cached)).toEqual(number(7));
      expect(grandTotal('SUBTOTAL(2,A1:A4)', cached)).toEqual(number(3));
      expect(grandTotal('SUM(A1:A4)', cached)).toEqual(number(10));
    }
  });

  it('answers #VALUE! for a function number it does not have', () => {
    expect(grandTotal('SUBTOTAL(12,A1:A4)', true)).toEqual(error('#VALUE!'));
    expect(grandTotal('SUBTOTAL(9)', true)).toEqual(error('#VALUE!'));
  });
});
