/**
 * SUBTOTAL over a list with subtotal rows, through the service (formulas/subtotal.ts): a file openpyxl writes with
 * no cached results is read over HTTP with each row counted once, and a write computes the totals again from the
 * tab the service holds (snapshot-cells.ts `formula`, which tells a subtotal row from a number), saving results
 * openpyxl reads back. Before, SUBTOTAL was not computed at all (null), and SUM counts the subtotal rows too.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook()
d = wb.active
d.title = 'Data'
d.append(['Item', 'Amount', 'Total'])
for row in [['a', 1, None], ['b', 2, None], ['sub', '=SUBTOTAL(9,B2:B3)', None], ['c', 4, None],
            ['all', '=SUBTOTAL(9,B2:B5)', '=SUM(B2:B5)']]:
    d.append(row)
wb.save(sys.argv[1])
`;

const CACHED = `
import json, sys, openpyxl
d = openpyxl.load_workbook(sys.argv[1], data_only=True)['Data']
print(json.dumps([[c.value for c in r][1:] for r in d.iter_rows(min_row=2)]))
`;

let h: Harness;
let book: ConnectionRecord;
let file: string;

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'subtotals.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
}, 120_000);
afterAll(async () => {
  await h.close();
});

const amounts = async () =>
  ((await (await h.fetch(rowsPath(book, 'Data'))).json()) as { Amount: unknown; Total: unknown }[]).map(
    (r) => [r.Amount, r.Total],
  );

it('counts each row once, on read and after a write, and saves what openpyxl reads', async () => {
  expect(await amounts()).toEqual([
    [1, null],
    [2, null],
    [3, null],
    [4, null],
    [7, 10],
  ]);
  const write = await h.fetch(rowsPath(book, 'Data', '/4'), {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ Amount: 40 }), // read by the grand total only: the subtotal above keeps its result
  });
  expect(write.status).toBe(200);
  const after = [
    [1, null],
    [2, null],
    [3, null],
    [40, null],
    [43, 46],
  ];
  expect(await amounts()).toEqual(after);
  expect(JSON.parse(await runPython(CACHED, [file]))).toEqual(after);
}, 60_000);
