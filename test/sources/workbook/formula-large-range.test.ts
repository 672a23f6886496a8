/**
 * Formulas over large ranges (a total of a whole column, as a summary tab holds it), computed where the file has
 * no result (openpyxl writes none) and again after a write: right, and in one pass over the range. Both formula
 * libraries flattened a range by concatenation, a copy of all before each value or row (11 s for 30,000 cells,
 * minutes for 100,000, on the service's thread after a write): fast-formula-parser's flattening is replaced
 * (`linearFlatten`, formulas/parser.ts) and must give exactly what its own gave; Formula.js's functions are given
 * their ranges flat already (formulas/functions.ts), and must answer exactly as they do for the ranges.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { formulajsFunction, OVER_RANGES } from '../../../server/sources/workbook/formulas/functions.ts';
import { formulaLibrary, linearFlatten } from '../../../server/sources/workbook/formulas/parser.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const ROWS = 60_000;

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook(write_only=True)
ws = wb.create_sheet('Orders')
ws.append(['Qty', 'Price'])
for i in range(1, ${ROWS} + 1):
    ws.append([i, 2])
summary = wb.create_sheet('Summary')
summary.append(['What', 'Value'])
summary.append(['total', '=SUM(Orders!A:A)'])
summary.append(['mean', '=AVERAGE(Orders!A2:A${ROWS + 1})'])
summary.append(['products', '=SUMPRODUCT(Orders!A2:A${ROWS + 1},Orders!B2:B${ROWS + 1})'])
summary.append(['largest', '=MAX(Orders!A:A)'])
summary.append(['over half', '=COUNTIFS(Orders!A:A,">${ROWS / 2}")'])
summary.append(['where', '=MATCH(${ROWS},Orders!A:A,0)'])
wb.save(sys.argv[1])
`;

const CACHED = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True, read_only=True)
print(json.dumps([[c.value for c in r] for r in wb['Summary'].iter_rows(min_row=2)]))
`;

/** The library's own flattening, as fast-formula-parser 1.0.19 writes it (formulas/helpers.js `flattenDeep`). */
function librarysFlatten(values: unknown[]): unknown[] {
  return values.reduce<unknown[]>(
    (acc, value) => (Array.isArray(value) ? acc.concat(librarysFlatten(value)) : acc.concat(value)),
    [],
  );
}

describe('the formula library flattening a range', () => {
  it('gives what its own flattening gave, for nested arrays of any values', () => {
    const leaf = fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null), fc.constant(undefined));
    const { nested } = fc.letrec((tie) => ({
      nested: fc.array(fc.oneof({ depthSize: 'small' }, leaf, tie('nested')), { maxLength: 6 }),
    }));
    fc.assert(
      fc.property(nested, (values) => {
        expect(linearFlatten(values as unknown[])).toEqual(librarysFlatten(values as unknown[]));
      }),
      { numRuns: 2000 },
    );
  });

  it('is the one the library uses', () => {
    const helpers = (
      formulaLibrary().FormulaParser as unknown as { FormulaHelpers: { flattenDeep: unknown } }
    ).FormulaHelpers;
    expect(helpers.flattenDeep).toBe(linearFlatten);
  });
});

describe('Formula.js functions over ranges', () => {
  const formulajs: unknown = createRequire(import.meta.url)('@formulajs/formulajs');
  const cell = fc.oneof(
    fc.integer({ min: -5, max: 5 }),
    fc.constantFrom('a', 'B', '', '3'),
    fc.boolean(),
    fc.constant(null),
  );
  /** Two ranges of one shape (rows by columns), as the parser gives a range: a 2-D array. */
  const ranges = fc
    .tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 }))
    .chain(([rows, columns]) => {
      const range = fc.array(fc.array(cell, { minLength: columns, maxLength: columns }), {
        minLength: rows,
        maxLength: rows,
      });
      return fc.tuple(range, range);
    });
  const criteria = fc.constantFrom('>0', '<=2', 'a', '<>B', '3', '*');
  /** Each function's arguments, with two ranges of one shape in them. */
  const argsOf: Record<
    (typeof OVER_RANGES)[number],
    (a: unknown[][], b: unknown[][], c: string) => unknown[]
  > = {
    MAX: (a, b) => [a, b],
    MAXA: (a, b) => [a, b],
    MIN: (a, b) => [a, b],
    MINA: (a, b) => [a, b],
    MEDIAN: (a) => [a],
    'MODE.SNGL': (a) => [a],
    'STDEV.S': (a) => [a],
    'STDEV.P': (a) => [a],
    'VAR.S': (a) => [a],
    'VAR.P': (a) => [a],
    LARGE: (a) => [a, 2],
    SMALL: (a) => [a, 1],
    LOOKUP: (a, b) => [3, a, b],
    NPV: (a) => [0.1, a],
    IRR: (a) => [a],
    XNPV: (a, b) => [0.1, a, b],
    XIRR: (a, b) => [a, b],
    'PERCENTILE.INC': (a) => [a, 0.5],
    'PERCENTILE.EXC': (a) => [a, 0.5],
    'QUARTILE.INC': (a) => [a, 1],
    'QUARTILE.EXC': (a) => [a, 1],
    CORREL: (a, b) => [a, b],
    SLOPE: (a, b) => [a, b],
    RSQ: (a, b) => [a, b],
    FORECAST: (a, b) => [1, a, b],
    'COVARIANCE.P': (a, b) => [a, b],
    'COVARIANCE.S': (a, b) => [a, b],
    GEOMEAN: (a) => [a],
    SKEW: (a) => [a],
    'SKEW.P': (a) => [a],
    TRIMMEAN: (a) => [a, 0.2],
    'PERCENTRANK.INC': (a) => [a, 2],
    'PERCENTRANK.EXC': (a) => [a, 2],
    PEARSON: (a, b) => [a, b],
    STEYX: (a, b) => [a, b],
  };
  const answer = (f: () => unknown) => {
    try {
      const result = f();
      return result instanceof Error ? { error: result.message } : result;
    } catch (e) {
      return { threw: (e as Error).message };
    }
  };

  it.each(OVER_RANGES)('%s answers for a range given flat as for the range itself', (name) => {
    const fn = formulajsFunction(formulajs, name)!;
    expect(fn).toBeTypeOf('function');
    fc.assert(
      fc.property(ranges, criteria, ([a, b], c) => {
        const args = argsOf[name](a, b, c);
        const flat = args.map((arg) => (Array.isArray(arg) ? arg.flat(2) : arg));
        const asRanges = answer(() => fn(...structuredClone(args)));
        // Where Formula.js fails on the ranges themselves (AVERAGEIFS over a range of several columns: "does not
        // work with multi dimensional ranges yet"), the parser reads a failure as a formula it cannot compute;
        // given flat, it averages them as Excel does. Everywhere else, the same answer.
        if (typeof asRanges === 'object' && asRanges !== null && 'threw' in asRanges) return;
        expect(answer(() => fn(...structuredClone(flat)))).toEqual(asRanges);
      }),
      { numRuns: 300 },
    );
  });
});

describe(`totals of a ${ROWS}-row column`, () => {
  let h: Harness;
  let book: ConnectionRecord;
  let file: string;

  beforeAll(async () => {
    h = await startHarness();
    file = path.join(h.dir, 'totals.xlsx');
    await runPython(MAKE, [file]);
    book = await h.connect(file);
  }, 60_000);
  afterAll(async () => {
    await h.close();
  });

  const summary = async () => {
    const res = await h.fetch(rowsPath(book, 'Summary'));
    expect(res.status).toBe(200);
    return (await res.json()).map((row: { Value: unknown }) => row.Value);
  };

  it('are computed when the file is read, again after a write, and cached in the file for openpyxl', async () => {
    const sum = (ROWS * (ROWS + 1)) / 2;
    const facts = [ROWS, ROWS / 2, ROWS + 1]; // MAX, COUNTIFS over half, MATCH of the last (the header is row 1)
    expect(await summary()).toEqual([sum, sum / ROWS, 2 * sum, ...facts]);

    // Row 1 of Orders (Qty 1) becomes 1,000,001.
    const res = await h.fetch(rowsPath(book, 'Orders', '/1'), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Qty: 1_000_001 }),
    });
    expect(res.status).toBe(200);
    const after = sum + 1_000_000;
    const mean = Number((after / ROWS).toPrecision(15)); // 15 significant digits, as Excel keeps
    expect(await summary()).toEqual([after, mean, 2 * after, 1_000_001, ROWS / 2 + 1, ROWS + 1]);
    expect(JSON.parse(await runPython(CACHED, [file]))).toEqual([
      ['total', after],
      ['mean', mean],
      ['products', 2 * after],
      ['largest', 1_000_001],
      ['over half', ROWS / 2 + 1], // 1 became 1,000,001
      ['where', ROWS + 1],
    ]);
  }, 60_000);
});
