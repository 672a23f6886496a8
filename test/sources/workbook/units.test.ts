import { describe, expect, it } from 'vitest';
import { interpretInput, parseUserEntered } from '../../../server/sources/input.ts';
import { isoOfDate } from '../../../server/sources/serial-dates.ts';
import { shiftFormula, shiftRange } from '../../../server/sources/workbook/formulas/formula-text.ts';
import { RowMap } from '../../../server/sources/workbook/row-map.ts';

describe('formula reference shifting after deleting row 5 of Orders', () => {
  const rows = new RowMap([5]);
  const same = { sheetName: 'Orders', onSameSheet: true, rows };
  const cases: [string, string][] = [
    ['E6*F6', 'E5*F5'],
    ['E4*F4', 'E4*F4'],
    ['E5*2', '#REF!*2'],
    ['SUM(G2:G301)', 'SUM(G2:G300)'],
    ['SUM($G$2:$G$5)', 'SUM($G$2:$G$4)'],
    ['SUM(5:5)+SUM(4:6)', 'SUM(#REF!)+SUM(4:5)'],
    ["Orders!A7+'Orders'!B9+Other!A9", "Orders!A6+'Orders'!B8+Other!A9"],
    ['LOG10(A9)&"A9"&A9', 'LOG10(A8)&"A9"&A8'],
    ['"say ""A9"""&A9', '"say ""A9"""&A8'],
    ['Tbl1[Qty]+A10+[1]Orders!A9', 'Tbl1[Qty]+A9+[1]Orders!A9'],
    ['DAYS360(A1,A9)+1E5', 'DAYS360(A1,A8)+1E5'],
  ];
  for (const [before, after] of cases) {
    it(`${before} -> ${after}`, () => expect(shiftFormula(before, same)).toBe(after));
  }

  it('only touches qualified references from other sheets', () => {
    expect(shiftFormula("Orders!A9+A9+'orders'!B6", { ...same, onSameSheet: false })).toBe(
      "Orders!A8+A9+'orders'!B5",
    );
  });

  it('shifts plain ranges and drops fully deleted ones', () => {
    expect([
      shiftRange('A5:B6', rows),
      shiftRange('A5', rows),
      shiftRange('A5:C5', rows),
      shiftRange('A1:J301', rows),
    ]).toEqual(['A5:B5', null, null, 'A1:J300']);
    const many = new RowMap([3, 4, 5]);
    expect([many.row(6), many.span(3, 5), many.span(2, 7)]).toEqual([3, null, [2, 4]]);
  });
});

describe('user-entered parsing', () => {
  it('parses numbers, percents, currency and booleans', () => {
    expect(parseUserEntered('1,234.5')).toEqual({ kind: 'number', value: 1234.5 });
    expect(parseUserEntered(' 42 ')).toEqual({ kind: 'number', value: 42 });
    expect(parseUserEntered('+5')).toEqual({ kind: 'number', value: 5 });
    expect(parseUserEntered('-$1,234.50')).toEqual({ kind: 'number', value: -1234.5, numFmt: '"$"#,##0.00' });
    expect(parseUserEntered('12%')).toEqual({ kind: 'number', value: 0.12, numFmt: '0%' });
    expect(parseUserEntered('true')).toEqual({ kind: 'boolean', value: true });
    expect(parseUserEntered('1,23')).toEqual({ kind: 'text', value: '1,23' });
  });

  it('parses ISO and US dates, rejecting impossible ones', () => {
    const date = (s: string) => {
      const p = parseUserEntered(s);
      return p.kind === 'date' ? [isoOfDate(p.value), p.hasTime] : p.kind;
    };
    expect(date('2024-03-01')).toEqual(['2024-03-01', false]);
    expect(date('2024-03-01T09:30')).toEqual(['2024-03-01T09:30:00', true]);
    expect(date('2024-03-01 09:30:15.5')).toEqual(['2024-03-01T09:30:15.500', true]);
    expect(date('3/1/2024')).toEqual(['2024-03-01', false]);
    expect(date('2024-02-30')).toBe('text');
    expect(date('13/1/2024')).toBe('text');
  });

  it('treats "=..." as a formula only when allowed', () => {
    expect(interpretInput('=A1', { allowFormulas: false, userEntered: true })).toEqual({
      kind: 'text',
      value: '=A1',
    });
    expect(interpretInput('=A1', { allowFormulas: true, userEntered: false })).toEqual({
      kind: 'formula',
      formula: 'A1',
    });
    expect(interpretInput('', { allowFormulas: true, userEntered: true })).toEqual({ kind: 'empty' });
  });
});

describe('file error mapping', () => {
  it('treats EPERM/EACCES as a lock only on Windows; elsewhere it is a permissions problem', async () => {
    const { fileError, lockCodes } = await import('../../../server/sources/workbook/lock.ts');
    expect([...lockCodes('win32')].sort()).toEqual(['EACCES', 'EBUSY', 'EPERM']);
    expect([...lockCodes('linux')]).toEqual(['EBUSY']);
    const perm = fileError(Object.assign(new Error('x'), { code: 'EACCES' }), '/secret/dir/book.xlsx') as {
      code: string;
      message: string;
    };
    expect(perm.code).toBe('upstream_error');
    expect(perm.message).toContain('book.xlsx');
    expect(perm.message).not.toContain('/secret');
    expect(
      (fileError(Object.assign(new Error('x'), { code: 'EBUSY' }), '/d/b.xlsx') as { code: string }).code,
    ).toBe('locked');
  });
});
