/**
 * WORKDAY, WORKDAY.INTL, NETWORKDAYS and NETWORKDAYS.INTL (formulas/workday-functions.ts) count by whole weeks
 * and a sorted list of holidays: checked against a walk over the days one by one (written here, the plainest
 * reading of Excel's rules) on random dates, counts, weekends and holidays, and for counts a cell can hold that
 * the library walked without end. LibreOffice agrees on fixed cases (formula-criteria-libreoffice.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type FormulaResult,
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';

/** Evaluates `formula` with A1 and B1 set, and holidays down column C. */
function evaluate(
  formula: string,
  a1: unknown,
  b1: unknown,
  holidays: number[] = [],
): FormulaResult | undefined {
  const cells: SheetCells = {
    name: 'T',
    bottom: Math.max(1, holidays.length),
    right: 4,
    value: (row, column) => {
      if (column === 3) return (holidays[row - 1] ?? null) as never;
      return (row === 1 ? (column === 1 ? a1 : column === 2 ? b1 : null) : null) as never;
    },
    pending: (row, column) => (row === 1 && column === 4 ? formula : undefined),
  };
  return new WorkbookEvaluator([cells], [], []).result('T', 1, 4);
}

/** Weekend days, Monday first, of each code (Excel's table). */
const CODES: Record<number, number[]> = {
  1: [5, 6],
  2: [6, 0],
  3: [0, 1],
  4: [1, 2],
  5: [2, 3],
  6: [3, 4],
  7: [4, 5],
  11: [6],
  12: [0],
  13: [1],
  14: [2],
  15: [3],
  16: [4],
  17: [5],
};
const weekday = (serial: number) => (((serial + 5) % 7) + 7) % 7;
const working = (day: number, code: number, holidays: number[]) =>
  !CODES[code]!.includes(weekday(day)) && !holidays.includes(day);

function walkWorkday(start: number, days: number, code: number, holidays: number[]): number {
  let day = start;
  for (let left = Math.abs(days); left > 0; ) {
    day += Math.sign(days);
    if (working(day, code, holidays)) left--;
  }
  return day;
}

function walkNetworkdays(start: number, end: number, code: number, holidays: number[]): number {
  const [from, to] = start <= end ? [start, end] : [end, start];
  let count = 0;
  for (let day = from; day <= to; day++) if (working(day, code, holidays)) count++;
  return start <= end ? count : -count;
}

const number = (value: number) => ({ kind: 'number', value });

describe('working days', () => {
  const arbitrary = fc.record({
    start: fc.integer({ min: 40_000, max: 50_000 }),
    days: fc.integer({ min: -80, max: 80 }),
    code: fc.constantFrom(...Object.keys(CODES).map(Number)),
    holidays: fc.array(fc.integer({ min: -60, max: 60 }), { maxLength: 6 }),
  });

  it('WORKDAY.INTL and WORKDAY land where a walk over the days lands', () => {
    fc.assert(
      fc.property(arbitrary, ({ start, days, code, holidays }) => {
        const dates = holidays.map((h) => start + h);
        expect(evaluate(`WORKDAY.INTL(A1,B1,${code},C1:C6)`, start, days, dates)).toEqual(
          number(walkWorkday(start, days, code, dates)),
        );
        if (code === 1)
          expect(evaluate('WORKDAY(A1,B1,C1:C6)', start, days, dates)).toEqual(
            number(walkWorkday(start, days, 1, dates)),
          );
      }),
      { numRuns: 400 },
    );
  });

  it('NETWORKDAYS.INTL and NETWORKDAYS count what a walk over the days counts', () => {
    fc.assert(
      fc.property(arbitrary, ({ start, days, code, holidays }) => {
        const dates = holidays.map((h) => start + h);
        const end = start + days * 3;
        expect(evaluate(`NETWORKDAYS.INTL(A1,B1,${code},C1:C6)`, start, end, dates)).toEqual(
          number(walkNetworkdays(start, end, code, dates)),
        );
        if (code === 1)
          expect(evaluate('NETWORKDAYS(A1,B1,C1:C6)', start, end, dates)).toEqual(
            number(walkNetworkdays(start, end, 1, dates)),
          );
      }),
      { numRuns: 400 },
    );
  });

  it('reads a weekend of seven 0/1 characters, Monday first, and refuses one of seven weekend days', () => {
    // 45352 is Friday 2024-03-01; with Friday and Saturday off, one working day on is Sunday.
    expect(evaluate('WORKDAY.INTL(A1,1,"0000110")', 45352, null)).toEqual(number(45354));
    expect(evaluate('WORKDAY.INTL(A1,1,"1111111")', 45352, null)).toEqual({
      kind: 'error',
      value: '#VALUE!',
    });
    expect(evaluate('WORKDAY.INTL(A1,1,9)', 45352, null)).toEqual({ kind: 'error', value: '#NUM!' });
  });

  it('answers counts a cell can hold at once: #NUM! past 9999-12-31, never a walk of 10^12 days', () => {
    expect(evaluate('WORKDAY(A1,B1)', 45352, 1e12)).toEqual({ kind: 'error', value: '#NUM!' });
    expect(evaluate('WORKDAY(A1,B1)', 45352, -1e6)).toEqual({ kind: 'error', value: '#NUM!' });
    expect(evaluate('NETWORKDAYS(A1,B1)', 1, 2_958_465)).toEqual(
      number(walkNetworkdays(1, 2_958_465, 1, [])),
    );
    expect(evaluate('WORKDAY(A1,B1)', 1, 2_000_000)).toEqual(number(walkWorkday(1, 2_000_000, 1, [])));
    expect(evaluate('NETWORKDAYS(A1,B1)', 1, 1e12)).toEqual({ kind: 'error', value: '#NUM!' });
  });
});
