/**
 * REPT, TRIM and SUBSTITUTE as Excel computes them (formulas/text-functions.ts), in one pass whatever the cells
 * hold: a count or a text written through the API cannot hold the service. Each expectation is Excel's answer;
 * LibreOffice agrees on the plain ones (formula-criteria-libreoffice.test.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { evaluateBesideA1 as evaluate } from './one-cell.ts';

const text = (value: string) => ({ kind: 'text', value });
const VALUE = { kind: 'error', value: '#VALUE!' };

describe('REPT', () => {
  it('repeats a whole number of times', () => {
    expect(evaluate('REPT("ab",3)')).toEqual(text('ababab'));
    expect(evaluate('REPT("ab",2.9)')).toEqual(text('abab'));
    expect(evaluate('REPT(7,A1)', '2')).toEqual(text('77'));
  });

  it("refuses a negative count and a result past Excel's longest text, at once", () => {
    expect(evaluate('REPT("a",-1)')).toEqual(VALUE);
    expect(evaluate('REPT("|",A1)', 1e12)).toEqual(VALUE); // the library looped 10^12 times
    expect(evaluate('REPT("a",32768)')).toEqual(VALUE);
    expect(evaluate('REPT("a",32767)')).toEqual(text('a'.repeat(32_767)));
    expect(evaluate('REPT("",A1)', 1e15)).toEqual({ kind: 'text', value: '' });
  });
});

describe('TRIM', () => {
  it('drops the spaces around the text and keeps one between words, as Excel does (the library kept them)', () => {
    expect(evaluate('TRIM("  a   b  ")')).toEqual(text('a b'));
    expect(evaluate('TRIM(A1)', '\ta  b\n')).toEqual(text('\ta b\n')); // only spaces are Excel's to trim
  });

  it('answers a cell of 32,000 spaces between two letters at once (the library backtracked 616 ms)', () => {
    expect(evaluate('TRIM(A1)', `a${' '.repeat(32_000)}x`)).toEqual(text('a x'));
  });
});

describe('SUBSTITUTE', () => {
  it('replaces every match, or the instance-th counted from the start', () => {
    expect(evaluate('SUBSTITUTE("a-b-c","-","+")')).toEqual(text('a+b+c'));
    expect(evaluate('SUBSTITUTE("aXa","a","b",1)')).toEqual(text('bXa')); // Formula.js: aXb
    expect(evaluate('SUBSTITUTE("aXa","a","b",2)')).toEqual(text('aXb'));
    expect(evaluate('SUBSTITUTE("aaa","aa","b",2)')).toEqual(text('aaa'));
    expect(evaluate('SUBSTITUTE("abc","x","y",1)')).toEqual(text('abc'));
  });

  it('reads numbers as text, leaves the text as it is for an empty match, refuses an instance below 1', () => {
    expect(evaluate('SUBSTITUTE(A1,"2","x")', 123)).toEqual(text('1x3'));
    expect(evaluate('SUBSTITUTE("abc","","x")')).toEqual(text('abc'));
    expect(evaluate('SUBSTITUTE("abc","b","x",0)')).toEqual(VALUE);
  });

  it("refuses a result past Excel's longest text before making it", () => {
    // 30,000 matches of one character each replaced by 30,000: 900 million characters, never made.
    expect(evaluate('SUBSTITUTE(A1,"a",A1)', 'a'.repeat(30_000))).toEqual(VALUE);
    expect(evaluate('LEN(SUBSTITUTE(A1,"a","bb"))', 'a'.repeat(16_383))).toEqual({
      kind: 'number',
      value: 32_766,
    });
    expect(evaluate('SUBSTITUTE(A1,"a","bb")', 'a'.repeat(16_384))).toEqual(VALUE);
  });
});

describe("Excel's longest text", () => {
  const half = 'x'.repeat(16_384); // twice is one past 32,767
  const length = (n: number) => ({ kind: 'number', value: n });
  it('is #VALUE! past 32,767 characters from `&` and from any function, as in Excel', () => {
    expect(evaluate('LEN(A1&LEFT(A1,16383))', half)).toEqual(length(32_767));
    expect(evaluate('ISERROR(A1&A1)', half)).toEqual({ kind: 'boolean', value: true });
    expect(evaluate('LEN(CONCAT(A1,LEFT(A1,16383)))', half)).toEqual(length(32_767));
    expect(evaluate('ISERROR(CONCAT(A1,A1))', half)).toEqual({ kind: 'boolean', value: true });
    expect(evaluate('ISERROR(CONCATENATE(A1,A1))', half)).toEqual({ kind: 'boolean', value: true });
    expect(evaluate('LEN(TEXTJOIN("-",TRUE,A1,LEFT(A1,16382)))', half)).toEqual(length(32_767));
    expect(evaluate('ISERROR(TEXTJOIN("-",TRUE,A1,LEFT(A1,16383)))', half)).toEqual({
      kind: 'boolean',
      value: true,
    });
  });
});

describe('TEXT', () => {
  it('formats a number, or text that reads as one, and gives other text as it is', () => {
    expect(evaluate('TEXT(1234.5,"#,##0.00")')).toEqual(text('1,234.50'));
    expect(evaluate('TEXT(45352,"yyyy-mm-dd")')).toEqual(text('2024-03-01'));
    expect(evaluate('TEXT(A1,"000")', '12')).toEqual(text('012'));
    expect(evaluate('TEXT(A1,"0")', 'abc')).toEqual(text('abc'));
  });

  it('gives #VALUE! for a format it cannot read or longer than 255 characters, printing nothing', () => {
    const printed = vi.spyOn(console, 'error');
    try {
      expect(evaluate('TEXT(1,A1)', '[[[')).toEqual(VALUE);
      expect(evaluate('TEXT(1,A1)', '0'.repeat(256))).toEqual(VALUE);
      expect(printed).not.toHaveBeenCalled(); // the library printed a stack trace per computation
    } finally {
      printed.mockRestore();
    }
  });
});
