/**
 * The `where` grammar (server/rows/where/parse.ts) read as the contract writes it: precedence, keywords in any
 * case, quoted names and strings, the negations as `not` over their predicate, and every refusal a 400
 * `invalid_parameter` with the position of the token it stopped at, within the limits (4,096 characters, 100
 * predicates, 32 levels of parentheses).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../server/errors.ts';
import { parseWhere } from '../../server/rows/where/parse.ts';

const col = (name: string, position: number) => ({ name, position });

function refusal(text: string): { position: number; message: string; expected?: string[] } {
  try {
    parseWhere(text);
  } catch (e) {
    if (!isAppError(e)) throw e;
    expect(e.code).toBe('invalid_parameter');
    expect(e.details.parameter).toBe('where');
    return {
      position: e.details.position as number,
      message: e.message,
      expected: e.details.expected as string[],
    };
  }
  throw new Error(`${JSON.stringify(text)} was accepted`);
}

describe('where: what it reads', () => {
  it('binds not tighter than and, and and tighter than or', () => {
    expect(parseWhere('a = 1 or b = 2 and not c = 3')).toEqual({
      kind: 'or',
      items: [
        { kind: 'compare', column: col('a', 0), op: '=', value: 1 },
        {
          kind: 'and',
          items: [
            { kind: 'compare', column: col('b', 9), op: '=', value: 2 },
            { kind: 'not', item: { kind: 'compare', column: col('c', 23), op: '=', value: 3 } },
          ],
        },
      ],
    });
  });

  it('keeps the and of between inside it, and reads parentheses', () => {
    expect(parseWhere('(x between -1.5 and 2e3 and y < 0) or z >= 10')).toEqual({
      kind: 'or',
      items: [
        {
          kind: 'and',
          items: [
            { kind: 'between', column: col('x', 1), low: -1.5, high: 2000 },
            { kind: 'compare', column: col('y', 28), op: '<', value: 0 },
          ],
        },
        { kind: 'compare', column: col('z', 38), op: '>=', value: 10 },
      ],
    });
  });

  it('writes every negation as not over its predicate', () => {
    const not = (item: unknown) => ({ kind: 'not', item });
    expect(parseWhere('a != 1')).toEqual(not({ kind: 'compare', column: col('a', 0), op: '=', value: 1 }));
    expect(parseWhere('a <> 1')).toEqual(not({ kind: 'compare', column: col('a', 0), op: '=', value: 1 }));
    expect(parseWhere("a NOT IN ('x', 2, TRUE)")).toEqual(
      not({ kind: 'in', column: col('a', 0), values: ['x', 2, true] }),
    );
    expect(parseWhere('a not between 1 and 2')).toEqual(
      not({ kind: 'between', column: col('a', 0), low: 1, high: 2 }),
    );
    expect(parseWhere('a Is Not Null')).toEqual(not({ kind: 'null', column: col('a', 0) }));
    expect(parseWhere('not not a is null')).toEqual({ kind: 'null', column: col('a', 8) });
  });

  it('reads quoted names and strings, a doubled quote standing for one', () => {
    expect(parseWhere(`"Order Date" >= '2024-03-01'`)).toEqual({
      kind: 'compare',
      column: col('Order Date', 0),
      op: '>=',
      value: '2024-03-01',
    });
    expect(parseWhere(`"say ""hi""" = 'it''s'`)).toEqual({
      kind: 'compare',
      column: col('say "hi"', 0),
      op: '=',
      value: "it's",
    });
    expect(parseWhere(`"In" contains 'a' and "Größe" starts with '' or "é" ends WITH 'z'`)).toBeTruthy();
  });

  it('takes the text predicates with a string only', () => {
    expect(parseWhere("Name contains 'ann'")).toEqual({
      kind: 'text',
      column: col('Name', 0),
      match: 'contains',
      value: 'ann',
    });
    expect(parseWhere("Name STARTS with 'A'")).toMatchObject({ match: 'starts with' });
    expect(refusal('Name contains 5')).toMatchObject({ position: 14, expected: ["a 'string'"] });
  });

  it('takes space, tab, CR and LF as whitespace, and nothing else', () => {
    expect(parseWhere('\ta\r\n=\n1 ')).toMatchObject({ kind: 'compare', value: 1 });
    expect(refusal('a =\u00a01')).toMatchObject({ position: 3 });
  });
});

describe('where: what it refuses, and where', () => {
  it('points at the token it stopped at, or the end when the text ended too soon', () => {
    expect(refusal('a == 1')).toMatchObject({
      position: 3,
      expected: ['a number', "a 'string'", 'true', 'false'],
    });
    expect(refusal('a = ')).toMatchObject({ position: 4 });
    expect(refusal('a = 1 b = 2')).toMatchObject({ position: 6, expected: ['and', 'or', 'the end'] });
    expect(refusal('(a = 1')).toMatchObject({ position: 6 });
    expect(refusal('a = 1)')).toMatchObject({ position: 5 });
    expect(refusal("a = 'open")).toMatchObject({ position: 9 });
    expect(refusal('"open = 1')).toMatchObject({ position: 9 });
    expect(refusal('a in ()')).toMatchObject({ position: 6 });
    expect(refusal('a between 1 or 2')).toMatchObject({ position: 12, expected: ['and'] });
    expect(refusal('a is nul')).toMatchObject({ position: 5 });
    expect(refusal('a not like 1')).toMatchObject({ position: 6, expected: ['in', 'between'] });
    expect(refusal('a ~ 1')).toMatchObject({ position: 2 });
    expect(refusal('a = 01')).toMatchObject({ position: 5 });
    expect(refusal('a = 1e999')).toMatchObject({ position: 4 });
    expect(refusal('')).toMatchObject({ position: 0 });
  });

  it('asks for quotes around a keyword used as a column, and around a name that is not ASCII', () => {
    const keyword = refusal('in = 1');
    expect(keyword.position).toBe(0);
    expect(keyword.message).toContain('"in"');
    const accent = refusal('Größe = 1');
    expect(accent.position).toBe(2);
    expect(accent.message).toContain('double quotes');
  });

  it('takes 4,096 characters, 100 predicates and 32 levels of parentheses, and no more', () => {
    const padded = (n: number) => `a = 1${' '.repeat(n - 5)}`;
    expect(parseWhere(padded(4096))).toMatchObject({ kind: 'compare' });
    expect(refusal(padded(4097))).toMatchObject({ position: 4096 });

    const predicates = (n: number) => Array.from({ length: n }, (_, i) => `c${i} = ${i}`).join(' or ');
    expect(parseWhere(predicates(100))).toMatchObject({ kind: 'or' });
    const hundredOne = predicates(101);
    expect(refusal(hundredOne)).toMatchObject({ position: hundredOne.lastIndexOf('c100') });

    const nested = (n: number) => `${'('.repeat(n)}a = 1${')'.repeat(n)}`;
    expect(parseWhere(nested(32))).toMatchObject({ kind: 'compare' });
    expect(refusal(nested(33))).toMatchObject({ position: 32 });
  });

  it('reads a thousand nots in a row without recursing on each', () => {
    expect(parseWhere(`${'not '.repeat(1000)}a = 1`)).toMatchObject({ kind: 'compare' });
    expect(parseWhere(`${'not '.repeat(1001)}a = 1`)).toMatchObject({ kind: 'not' });
  });
});

describe('where: any text', () => {
  const pieces = [
    'a',
    '"b c"',
    "'x'",
    "'it''s'",
    '5',
    '-1.5e3',
    'true',
    'and',
    'or',
    'not',
    'in',
    'between',
    'is',
    'null',
    'contains',
    'starts',
    'ends',
    'with',
    '(',
    ')',
    ',',
    '=',
    '!=',
    '<>',
    '<',
    '<=',
    '>',
    '>=',
    ' ',
    '\t',
    '"',
    "'",
    'é',
    '\u0000',
    '\\',
    ';',
    '1e999',
  ];
  it('is read or refused with a position inside it, never thrown at otherwise', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc.array(fc.constantFrom(...pieces), { maxLength: 120 }).map((p) => p.join('')),
        ),
        (text) => {
          try {
            parseWhere(text);
          } catch (e) {
            expect(isAppError(e), String(e)).toBe(true);
            if (!isAppError(e)) return;
            expect(e.code).toBe('invalid_parameter');
            expect(e.details.position).toBeGreaterThanOrEqual(0);
            expect(e.details.position).toBeLessThanOrEqual(text.length);
          }
        },
      ),
      { numRuns: 2000, seed: 29 },
    );
  });

  it('refuses the largest hostile shapes in one pass, without deep recursion', () => {
    const hostile = [
      '('.repeat(4096),
      `${'not '.repeat(1023)}`,
      `'${"''".repeat(2046)}`,
      'a = 1 and '.repeat(409),
      `${'"x" = 1 or '.repeat(100)}"x" = 1`,
    ];
    for (const text of hostile) expect(refusal(text.slice(0, 4096)).position).toBeLessThanOrEqual(4096);
    // One predicate may list as many values as fit: a set, looked up once per row.
    expect(parseWhere(`a in (${'1,'.repeat(2040)}1)`)).toMatchObject({ kind: 'in' });
  });
});
