/**
 * Excel's operators where LibreOffice cannot be the reference (formula-operators-libreoffice.test.ts compares
 * the rest): logical values against text and numbers, arrays of unequal shapes, errors cell by cell, and how
 * `&` writes a number.
 */
import { describe, expect, it } from 'vitest';
import { evaluateBesideA1 } from './one-cell.ts';

const value = (formula: string, a1: unknown = null) => evaluateBesideA1(formula, a1)?.value;

describe('comparisons', () => {
  it('orders numbers before text before logical values, and a logical value is no number', () => {
    expect(value('TRUE>"zzz"')).toBe(true);
    expect(value('"a">99999')).toBe(true);
    expect(value('TRUE=1')).toBe(false);
    expect(value('FALSE<TRUE')).toBe(true);
  });
  it('reads a blank cell as the other side kind of nothing', () => {
    expect(value('A1=""')).toBe(true);
    expect(value('A1=0')).toBe(true);
    expect(value('A1=FALSE')).toBe(true);
    expect(value('A1<"a"')).toBe(true);
    expect(value('A1<>""', 'x')).toBe(true);
  });
  it('compares text without regard to case but not accents, and numbers to 15 digits', () => {
    expect(value('"Straße"="STRASSE"')).toBe(false);
    expect(value('"ÉTÉ"="été"')).toBe(true);
    expect(value('"e"="é"')).toBe(false);
    expect(value('1/3*3=1')).toBe(true);
    expect(value('1.0000000000001=1')).toBe(false);
  });
});

describe('arrays', () => {
  it('repeats a row or column along the other array, and gives #N/A beyond a larger one', () => {
    expect(value('SUMPRODUCT({1,2,3}*{1;1})')).toBe(12);
    expect(value('INDEX({1,2,3}*{1,1},1,2)')).toBe(2);
    expect(value('INDEX({1,2,3}*{1,1},1,3)')).toBe('#N/A');
    expect(value('SUMPRODUCT({1,2,3}*{1,1})')).toBe('#N/A');
  });
  it('keeps each cell error to its cell', () => {
    expect(value('1/{1,0,2}')).toBe(1);
    expect(value('INDEX(1/{1,0,2},1,2)')).toBe('#DIV/0!');
    expect(value('INDEX(1/{1,0,2},1,3)')).toBe(0.5);
    expect(value('SUMPRODUCT(1/{1,0,2})')).toBe('#DIV/0!');
  });
});

describe('arithmetic', () => {
  it('reads text that is a number and logical values, and refuses other text', () => {
    expect(value('"1,000"+1')).toBe(1001);
    expect(value('"50%"*2')).toBe(1);
    expect(value('TRUE+TRUE')).toBe(2);
    expect(value('""+1')).toBe('#VALUE!');
    expect(value('A1+"a"', 5)).toBe('#VALUE!');
  });
  it('gives #NUM! and #DIV/0! where Excel does', () => {
    expect(value('0^0')).toBe('#NUM!');
    expect(value('0^-1')).toBe('#DIV/0!');
    expect(value('(-8)^0.5')).toBe('#NUM!');
    expect(value('10^400')).toBe('#NUM!');
    expect(value('-A1')).toBe(0);
  });
});

describe('& writes a number as the General format does', () => {
  it.each([
    ['0.1+0.2&""', '0.3'],
    ['10^15&""', '1E+15'],
    ['123456789012345&""', '123456789012345'],
    ['1234567890123456&""', '1.23456789012346E+15'],
    ['1E-10&""', '1E-10'],
    ['-2.5E-20&""', '-2.5E-20'],
    ['0.001&""', '0.001'],
    ['TRUE&""', 'TRUE'],
    ['A1&"x"', 'x'],
  ])('%s is %s', (formula, text) => {
    expect(value(formula)).toBe(text);
  });
});

describe('functions of one value given arrays (lifted-calls.ts)', () => {
  it('are called once per cell, paired as the operators pair arrays', () => {
    expect(value('SUMPRODUCT(LEN({"ab","c",""}))')).toBe(3);
    expect(value('SUMPRODUCT(IF({1,0,1}>0,{2,3,4},0))')).toBe(6);
    expect(value('SUMPRODUCT(MOD({10;20},{3,4}))')).toBe(1 + 2 + 2 + 0);
    expect(value('SUMPRODUCT(IFERROR(1/{1,0,4},0))')).toBe(1.25);
    expect(value('SUMPRODUCT(LEN({"a","b","c"}&{"x","y"}))')).toBe('#N/A');
  });
  it('leave a call of single values as it is', () => {
    expect(value('LEN(A1)', 'abc')).toBe(3);
    expect(value('IF(A1>1,"big","small")', 5)).toBe('big');
  });
});

describe('whole columns past the last row (range-extent.ts fills)', () => {
  const ROWS = 1_048_576;
  it('count every cell of the column, as the operators and functions make of a blank', () => {
    expect(value('SUMPRODUCT((A:A="")*1)', 'x')).toBe(ROWS - 1);
    expect(value('SUMPRODUCT(-(A:A<>"x"))', 'x')).toBe(-(ROWS - 1));
    expect(value('SUMPRODUCT(IF(A:A="",2,0))', 'x')).toBe(2 * (ROWS - 1));
    expect(value('SUMPRODUCT((A:A="")*1,A:A+1)', 4)).toBe(ROWS - 1);
  });
  it('give the error a blank makes, as Excel does', () => {
    expect(value('SUMPRODUCT(1/A:A)', 4)).toBe('#DIV/0!');
  });
  it('make every cell where a column is paired with a row', () => {
    expect(value('SUMPRODUCT((A:A="")*{1,2})', 'x')).toBe(3 * (ROWS - 1));
  });
});
