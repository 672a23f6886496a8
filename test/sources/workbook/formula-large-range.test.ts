/**
 * Formulas over large ranges (a total of a whole column, as a summary tab holds it), computed where the file has
 * no result (openpyxl writes none) and again after a write: right, and in one pass over the range. The formula
 * library flattened a range one value at a time onto a copy of all before it (11 s for 30,000 cells, minutes for
 * 100,000, on the service's thread after a write); `linearFlatten` (formulas/parser.ts) replaces it, and must give
 * exactly what the library's own gave.
 */
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
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
    expect(await summary()).toEqual([sum, sum / ROWS, 2 * sum]);

    // Row 1 of Orders (Qty 1) becomes 1,000,001.
    const res = await h.fetch(rowsPath(book, 'Orders', '/1'), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Qty: 1_000_001 }),
    });
    expect(res.status).toBe(200);
    const after = sum + 1_000_000;
    const mean = Number((after / ROWS).toPrecision(15)); // 15 significant digits, as Excel keeps
    expect(await summary()).toEqual([after, mean, 2 * after]);
    expect(JSON.parse(await runPython(CACHED, [file]))).toEqual([
      ['total', after],
      ['mean', mean],
      ['products', 2 * after],
    ]);
  }, 60_000);
});
