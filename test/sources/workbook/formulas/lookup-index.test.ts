/**
 * Per-row lookups over a whole range are answered from an index of it (formulas/lookup-index.ts): a
 * `VLOOKUP(A2,L!A:B,2,FALSE)` in every row reads the table once, not once per row. Every answer must be the
 * one the function itself gives, which is checked against an evaluator leaving every call to its function, on
 * random tabs holding what the functions compare differently: text in other cases, numbers and text that read
 * alike, booleans, blanks, errors, wildcards, formulas not computed yet, duplicates.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type FormulaResult,
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';

/** A cell: a value, or a formula (`=` first) the evaluator computes. */
type Cell = string | number | boolean | null;

const POOL: Cell[] = [
  0,
  1,
  2,
  2.5,
  -3,
  'apple',
  'Apple',
  'APPLE',
  'b',
  '5',
  5,
  '',
  'x.y',
  'a*',
  'a?c',
  true,
  false,
  null,
  '=1/0',
  '=2+3',
  '="Apple"',
  '=1=1',
];
const cellArb = fc.constantFrom(...POOL);

/** Each column of T holds one of these in every row; `{r}` is the row. */
const TEMPLATES = [
  'VLOOKUP(A{r},L!A:C,2,FALSE)',
  'VLOOKUP(A{r},L!$A$1:$C$12,3,0)',
  'VLOOKUP(A{r},L!A:C,4,FALSE)',
  'VLOOKUP(A{r}&"",L!A:B,2,FALSE)',
  'VLOOKUP(A{r},L!A:C,2,TRUE)',
  'MATCH(A{r},L!A:A,0)',
  'MATCH(A{r},L!A1:C10,0)',
  'XLOOKUP(A{r},L!A:A,L!C:C)',
  'XLOOKUP(A{r},L!A:A,L!B:B,"none")',
  'XLOOKUP(A{r},L!A1:B10,L!C1:D10)',
  'COUNTIF(L!A:A,A{r})',
  'COUNTIF(L!A1:C12,A{r})',
  'COUNTIF(L!B:B,A{r})',
  'COUNTIF(L!A:A,"="&A{r})',
  'SUMIF(L!A:A,A{r},L!B:B)',
  'SUMIF(L!B:B,A{r})',
  'SUMIF(L!A:A,A{r},L!C2)',
  'SUMIF(L!A1:A10,A{r},L!B5:B5)',
  'SUMIF(L!A:B,A{r},L!C:C)',
  'IFERROR(VLOOKUP(A{r},L!A:C,3,FALSE),"-")&"|"&COUNTIF(L!C:C,A{r})',
  'RANK(A{r},L!A:C)',
  'RANK.EQ(A{r},L!B:B,1)',
  'RANK(A{r},L!A1:A12,0)',
  'COUNTIFS(L!A:A,A{r})',
  'COUNTIFS(L!A:A,A{r},L!B:B,A{r})',
  'COUNTIFS(L!A1:B10,A{r},L!B1:C10,"5")',
  'SUMIFS(L!C:C,L!A:A,A{r})',
  'SUMIFS(L!B1:B5,L!A:A,A{r})',
  'AVERAGEIFS(L!B:B,L!A:A,A{r})',
  'MAXIFS(L!B:B,L!A:A,A{r},L!C:C,TRUE)',
  'MINIFS(L!C:C,L!A:A,A{r})',
];

function tab(name: string, rows: readonly (readonly Cell[])[]): SheetCells {
  const at = (row: number, column: number) => rows[row - 1]?.[column - 1] ?? null;
  return {
    name,
    bottom: rows.length,
    right: Math.max(...rows.map((r) => r.length)),
    value: (row, column) => {
      const v = at(row, column);
      return typeof v === 'string' && v.startsWith('=') ? null : v;
    },
    pending: (row, column) => {
      const v = at(row, column);
      return typeof v === 'string' && v.startsWith('=') ? v.slice(1) : undefined;
    },
  };
}

/** Every result of T's formula columns, by an evaluator with or without the indexes. */
function results(lookup: Cell[][], keys: Cell[], indexes: boolean): (FormulaResult | undefined)[][] {
  const t = keys.map((key, i) => [key, ...TEMPLATES.map((f) => `=${f.replaceAll('{r}', String(i + 1))}`)]);
  const evaluator = new WorkbookEvaluator([tab('T', t), tab('L', lookup)], [], [], {
    lookupIndexes: indexes,
  });
  return t.map((_, i) => TEMPLATES.map((_f, c) => evaluator.result('T', i + 1, c + 2)));
}

describe('lookups answered from an index', () => {
  it('answer what the function itself answers, on random tabs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(cellArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 14 }),
        fc.array(cellArb, { minLength: 2, maxLength: 12 }),
        (lookup, keys) => {
          expect(results(lookup, keys, true)).toEqual(results(lookup, keys, false));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('give 0 for a blank cell found, as Excel does, with an index or without', () => {
    // L: a, (blank); b, 7. Each formula twice, so the second call is answered from the index.
    const lookup = tab('L', [
      ['a', null],
      ['b', 7],
    ]);
    const formulas = [
      'VLOOKUP("A",L!A:B,2,FALSE)',
      'VLOOKUP(A1,L!A:B,2,FALSE)+1',
      'XLOOKUP(A1,L!A:A,L!B:B)',
      'XLOOKUP("b",L!A:A,L!B:B)',
      'VLOOKUP("c",L!A:B,2,FALSE)',
    ];
    for (const indexes of [true, false]) {
      const t = tab('T', [['a', ...formulas.flatMap((f) => [`=${f}`, `=${f}`])]]);
      const evaluator = new WorkbookEvaluator([t, lookup], [], [], { lookupIndexes: indexes });
      const got = formulas.flatMap((_, i) => [2 + 2 * i, 3 + 2 * i].map((c) => evaluator.result('T', 1, c)));
      const number = (value: number): FormulaResult => ({ kind: 'number', value });
      const notFound: FormulaResult = { kind: 'error', value: '#N/A' };
      expect(got).toEqual([...[0, 1, 0, 7].flatMap((v) => [number(v), number(v)]), notFound, notFound]);
    }
  });

  it('read the table once, not once per row: 3,000 VLOOKUPs over a 3,000-row table', () => {
    const ROWS = 3_000;
    let reads = 0;
    const lookup: SheetCells = {
      name: 'Rates',
      bottom: ROWS,
      right: 2,
      value: (row, column) => {
        reads++;
        return column === 1 ? `code-${row}` : row * 10;
      },
      pending: () => undefined,
    };
    const orders: SheetCells = {
      name: 'Orders',
      bottom: ROWS,
      right: 2,
      value: (row, column) => (column === 1 ? `CODE-${row}` : null),
      pending: (row, column) => (column === 2 ? `VLOOKUP(A${row},Rates!A:B,2,FALSE)` : undefined),
    };
    const evaluator = new WorkbookEvaluator([orders, lookup], [], []);
    // Text is matched without regard to case, as Excel matches it: `CODE-7` finds `code-7`.
    expect(evaluator.result('Orders', 7, 2)).toEqual({ kind: 'number', value: 70 });
    // The first call reads the table as the function does, the second indexes it, the rest read nothing.
    expect(reads).toBe(2 * ROWS);
    for (let row = 1; row <= ROWS; row++)
      expect(evaluator.result('Orders', row, 2)).toEqual({ kind: 'number', value: row * 10 });
    expect(reads).toBe(2 * 2 * ROWS);
  });

  it('read the ranges once for SUMIFS over equalities in every row: 3,000 rows by customer and month', () => {
    const ROWS = 3_000;
    let reads = 0;
    // Sales: customer (c0..c9), month (1..12), amount 1; each row sums the amounts of its customer and month.
    const sales: SheetCells = {
      name: 'Sales',
      bottom: ROWS,
      right: 4,
      value: (row, column) => {
        if (column === 4) return null;
        reads++;
        return column === 1 ? `c${row % 10}` : column === 2 ? (row % 12) + 1 : 1;
      },
      pending: (row, column) => (column === 4 ? `SUMIFS(C:C,A:A,A${row},B:B,B${row})` : undefined),
    };
    const evaluator = new WorkbookEvaluator([sales], [], []);
    const expected = (row: number) => {
      let n = 0;
      for (let r = 1; r <= ROWS; r++) if (r % 10 === row % 10 && r % 12 === row % 12) n++;
      return n;
    };
    expect(evaluator.result('Sales', 7, 4)).toEqual({ kind: 'number', value: expected(7) });
    const afterFirst = reads;
    for (let row = 1; row <= ROWS; row++)
      expect(evaluator.result('Sales', row, 4)).toEqual({ kind: 'number', value: expected(row) });
    // The second call indexes the three columns; the rest read only their own row's two criteria cells.
    expect(reads).toBeLessThan(afterFirst + 3 * ROWS + 3 * ROWS);
  });
});
