/**
 * COUNTIF, SUMIF, AVERAGEIF and their *IFS forms read and match criteria as Excel does (formulas/criteria.ts),
 * and wildcards anywhere (VLOOKUP, HLOOKUP, MATCH, SEARCH, the criteria) match whole cells, without regard to
 * case, in time bounded by the text times the pattern (formulas/wildcard.ts). Each expectation is Excel's answer
 * by its documented rules; the libraries answered otherwise (noted where they did).
 */
import { describe, expect, it } from 'vitest';
import {
  type FormulaResult,
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';
import { formulaLibrary } from '../../../../server/sources/workbook/formulas/parser.ts';
import { wildcard } from '../../../../server/sources/workbook/formulas/wildcard.ts';

/** Column A: mixed kinds; column B: amounts beside them; column C: a second condition. */
const A: unknown[] = [
  'Apple',
  'apple',
  'APPLES',
  5,
  '5',
  12,
  'banana',
  null,
  '',
  true,
  'TRUE',
  '#N/A',
  45352,
  'a*c',
];
const B: unknown[] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192];
const C: unknown[] = ['x', 'y', 'x', 'x', 'y', 'x', 'x', 'y', 'x', 'y', 'x', 'y', 'x', 'y'];

/** Evaluates one formula over rows 1..14 of A, B and C (A12 holds the error itself, not its text). */
function evaluate(formula: string, extra: Record<string, unknown> = {}): FormulaResult | undefined {
  const { FormulaError } = formulaLibrary();
  const columns = [A, B, C];
  const cells: SheetCells = {
    name: 'T',
    bottom: A.length,
    right: 10,
    value: (row, column) => {
      const at = `${String.fromCharCode(64 + column)}${row}`;
      if (at in extra) return extra[at] as never;
      if (at === 'A12') return FormulaError.NA;
      return (columns[column - 1]?.[row - 1] ?? null) as never;
    },
    pending: (row, column) => (row === 1 && column === 8 ? formula : undefined),
  };
  return new WorkbookEvaluator([cells], [], []).result('T', 1, 8);
}

const number = (value: number) => ({ kind: 'number', value });
const error = (value: string) => ({ kind: 'error', value });

describe('COUNTIF criteria', () => {
  it('matches text without regard to case, whole cells only (the library matched case)', () => {
    expect(evaluate('COUNTIF(A1:A14,"apple")')).toEqual(number(2));
    expect(evaluate('COUNTIF(A1:A14,"=APPLE")')).toEqual(number(2));
  });

  it('matches wildcards against the whole cell (the library found "a*" anywhere: "banana")', () => {
    expect(evaluate('COUNTIF(A1:A14,"a*")')).toEqual(number(4)); // Apple, apple, APPLES, a*c
    expect(evaluate('COUNTIF(A1:A14,"?pple")')).toEqual(number(2));
    expect(evaluate('COUNTIF(A1:A14,"*an*")')).toEqual(number(1));
    expect(evaluate('COUNTIF(A1:A14,"a~*c")')).toEqual(number(1)); // `~*` is a star itself
    expect(evaluate('COUNTIF(A1:A14,"*")')).toEqual(number(8)); // every text: "5", "TRUE" and "" too
  });

  it('matches a number and text that reads as it, by value (the library kept text "5" apart)', () => {
    expect(evaluate('COUNTIF(A1:A14,5)')).toEqual(number(2));
    expect(evaluate('COUNTIF(A1:A14,"5")')).toEqual(number(2));
    expect(evaluate('COUNTIF(A1:A14,"5.0")')).toEqual(number(2));
    expect(evaluate('COUNTIF(A1:A14,"500%")')).toEqual(number(2));
  });

  it('compares numbers only with numbers (the library counted every text as greater)', () => {
    expect(evaluate('COUNTIF(A1:A14,">4")')).toEqual(number(3)); // 5, 12, 45352
    expect(evaluate('COUNTIF(A1:A14,"<=5")')).toEqual(number(1));
    expect(evaluate('COUNTIF(A1:A14,">b")')).toEqual(number(2)); // banana, TRUE (text)
  });

  it('reads a date operand as its serial number', () => {
    // 45352 is 2024-03-01.
    expect(evaluate('COUNTIF(A1:A14,">=2024-03-01")')).toEqual(number(1));
    expect(evaluate('COUNTIF(A1:A14,"3/1/2024")')).toEqual(number(1));
    expect(evaluate('COUNTIF(A1:A14,">2024-03-01")')).toEqual(number(0));
  });

  it('counts blanks only for "" and "=", and as not equal to anything (the library counted them as 0)', () => {
    expect(evaluate('COUNTIF(A1:A14,"")')).toEqual(number(2)); // the blank and the empty text
    expect(evaluate('COUNTIF(A1:A14,"=")')).toEqual(number(1));
    expect(evaluate('COUNTIF(A1:A14,"<>")')).toEqual(number(13));
    expect(evaluate('COUNTIF(A1:A14,0)')).toEqual(number(0));
    expect(evaluate('COUNTIF(A1:A14,"<>apple")')).toEqual(number(12));
    expect(evaluate('COUNTIF(A1:A14,H2)')).toEqual(number(0)); // an empty criterion cell is 0
  });

  it('tells logical values from text, and counts errors by kind', () => {
    expect(evaluate('COUNTIF(A1:A14,TRUE)')).toEqual(number(1));
    expect(evaluate('COUNTIF(A1:A14,"TRUE")')).toEqual(number(1));
    expect(evaluate('COUNTIF(A1:A14,"#N/A")')).toEqual(number(1));
    expect(evaluate('COUNTIF(A1:A14,"<>#N/A")')).toEqual(number(13));
  });

  it('refuses a criterion longer than 255 characters, as Excel does', () => {
    expect(evaluate(`COUNTIF(A1:A14,"${'x'.repeat(256)}")`)).toEqual(error('#VALUE!'));
    expect(evaluate(`COUNTIF(A1:A14,"${'x'.repeat(255)}")`)).toEqual(number(0));
  });
});

describe('SUMIF, AVERAGEIF and the *IFS forms', () => {
  it('add and average what the criteria match', () => {
    expect(evaluate('SUMIF(A1:A14,"apple",B1:B14)')).toEqual(number(3));
    expect(evaluate('SUMIF(B1:B14,">1000")')).toEqual(number(1024 + 2048 + 4096 + 8192));
    expect(evaluate('AVERAGEIF(A1:A14,"5",B1:B14)')).toEqual(number(12));
    expect(evaluate('AVERAGEIF(A1:A14,"pear",B1:B14)')).toEqual(error('#DIV/0!'));
  });

  it("take SUMIF's values as large as its range from their top left cell", () => {
    expect(evaluate('SUMIF(A1:A14,"apple",B1)')).toEqual(number(3));
  });

  it('give back an error among the values where the criteria match, and ignore it elsewhere', () => {
    const errors = { B2: formulaLibrary().FormulaError.DIV0 };
    expect(evaluate('SUMIF(A1:A14,"apple",B1:B14)', errors)).toEqual(error('#DIV/0!'));
    expect(evaluate('SUMIF(A1:A14,"banana",B1:B14)', errors)).toEqual(number(64));
    expect(evaluate('SUMIFS(B1:B14,A1:A14,"apple")', errors)).toEqual(error('#DIV/0!'));
  });

  it('join every pair of a *IFS call (Formula.js matched no wildcard and compared text with numbers)', () => {
    expect(evaluate('COUNTIFS(A1:A14,"a*",C1:C14,"x")')).toEqual(number(2)); // Apple, APPLES
    expect(evaluate('SUMIFS(B1:B14,A1:A14,"a*",C1:C14,"X")')).toEqual(number(5));
    expect(evaluate('AVERAGEIFS(B1:B14,A1:A14,">4",C1:C14,"x")')).toEqual(
      number(Number(((8 + 32 + 4096) / 3).toPrecision(15))),
    );
    expect(evaluate('MAXIFS(B1:B14,A1:A14,"apple")')).toEqual(number(2));
    expect(evaluate('MINIFS(B1:B14,C1:C14,"y")')).toEqual(number(2));
    expect(evaluate('MAXIFS(B1:B14,A1:A14,"pear")')).toEqual(number(0));
  });

  it('refuse ranges of different shapes with #VALUE!', () => {
    expect(evaluate('COUNTIFS(A1:A14,"a*",C1:C13,"x")')).toEqual(error('#VALUE!'));
    expect(evaluate('SUMIFS(B1:B13,A1:A14,"a*")')).toEqual(error('#VALUE!'));
    expect(evaluate('COUNTIFS(A1:A14)')).toEqual(error('#VALUE!'));
  });
});

describe('wildcards in lookups', () => {
  it('match the whole cell without regard to case in VLOOKUP, HLOOKUP and MATCH (the libraries searched)', () => {
    expect(evaluate('VLOOKUP("?anana",A1:B14,2,FALSE)')).toEqual(number(64));
    expect(evaluate('VLOOKUP("an*",A1:B14,2,FALSE)')).toEqual(error('#N/A'));
    expect(evaluate('HLOOKUP("b*",H2:I3,2,FALSE)', { H2: 'xbox', I2: 'Box', H3: 1, I3: 2 })).toEqual(
      number(2),
    );
    expect(evaluate('MATCH("BAN*",A1:A14,0)')).toEqual(number(7));
    expect(evaluate('MATCH("a.c",A1:A14,0)')).toEqual(error('#N/A')); // a dot is a dot (Formula.js: any)
    expect(evaluate('MATCH("A~*C",A1:A14,0)')).toEqual(number(14));
  });

  it('find the first place a pattern starts in SEARCH', () => {
    expect(evaluate('SEARCH("n?n","banana")')).toEqual(number(3));
    expect(evaluate('SEARCH("A*N","xbanana")')).toEqual(number(3));
    expect(evaluate('SEARCH("n*z","banana")')).toEqual(error('#VALUE!'));
  });

  it('answer a pattern of many stars over long cells at once (the libraries backtracked for minutes)', () => {
    const long = 'a'.repeat(5_000);
    const cells = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`A${i + 1}`, long]));
    expect(evaluate('COUNTIF(A1:A14,"*a*a*a*a*a*a*a*c")', cells)).toEqual(number(0));
    expect(evaluate('COUNTIFS(A1:A14,"*a*a*a*a*a*a*a*a")', cells)).toEqual(number(14));
    expect(evaluate('MATCH("*a*a*a*a*a*a*a*c",A1:A14,0)', cells)).toEqual(error('#N/A'));
    expect(evaluate('VLOOKUP("*a*a*a*a*a*a*a*c",A1:B14,2,FALSE)', cells)).toEqual(error('#N/A'));
    expect(evaluate(`SEARCH("*a*a*a*a*a*a*c",A1)`, cells)).toEqual(error('#VALUE!'));
  });
});

describe('wildcard matching', () => {
  const cases: [string, string, boolean][] = [
    ['', '', true],
    ['*', '', true],
    ['?', '', false],
    ['a*b*c', 'aXXbYYc', true],
    ['a*b*c', 'aXXbYYcd', false],
    ['*c', 'abcabc', true],
    ['a?c', 'ABC', true],
    ['~?', '?', true],
    ['~?', 'x', false],
    ['~~*', '~anything', true],
    ['a~b', 'a~b', true],
    ['**a', 'ba', true],
  ];
  it.each(cases)('%j against %j: %s', (pattern, text, expected) => {
    expect(wildcard(pattern).matches(text)).toBe(expected);
  });

  it('finds the first start', () => {
    expect(wildcard('b?n').find('abanbxn')).toBe(1);
    expect(wildcard('ab').find('aab')).toBe(1);
    expect(wildcard('x*y').find('axbxcy', 2)).toBe(3);
    expect(wildcard('x*y').find('axbx')).toBe(-1);
  });
});
