/**
 * A workbook whose formulas have no results in the file (openpyxl writes them so) reads as the results the
 * service computes. After any write, a program that does not calculate (openpyxl with data_only) reads every
 * formula's result as the API does, on every tab, not only the formulas the write reached.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const MAKE = `
import sys, datetime, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Orders'
ws.append(['Item', 'Qty', 'Price', 'Total', 'Due', 'Flag'])
for i, (item, qty, price) in enumerate([('pen', 2, 1.5), ('ink', 3, 2), ('pad', 1, 10)], start=2):
    ws.append([item, qty, price, '=B%d*C%d' % (i, i), '=DATE(2024,3,%d)' % i, '=IF(B%d>1,"many","one")' % i])
    ws.cell(i, 5).number_format = 'yyyy-mm-dd'
notes = wb.create_sheet('Notes')
notes.append(['Note', 'Length'])
notes.append(['hello', '=LEN(A2)'])
wb.save(sys.argv[1])
`;

const CACHED = `
import json, sys, datetime, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True)
def plain(v):
    return v.isoformat() if isinstance(v, (datetime.datetime, datetime.date)) else v
print(json.dumps({ws.title: [[plain(c.value) for c in row] for row in ws.iter_rows(min_row=2)] for ws in wb.worksheets}))
`;

let h: Harness;
let file: string;
let book: ConnectionRecord;

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'orders.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
});
afterAll(async () => {
  await h.close();
});

describe('formulas without results in the file', () => {
  it('get the results the API reads, on every tab, at the first write', async () => {
    const res = await h.fetch(rowsPath(book, 'Orders'));
    expect((await res.json())[2]).toEqual({
      Item: 'pad',
      Qty: 1,
      Price: 10,
      Total: 10,
      Due: '2024-03-04',
      Flag: 'one',
    });
    const before = JSON.parse(await runPython(CACHED, [file]));
    expect(before.Orders[0]).toEqual(['pen', 2, 1.5, null, null, null]);

    // A write to one cell of one row: its Total is reached; the other rows and the Notes tab are not.
    const put = await h.fetch(rowsPath(book, 'Orders', '/1'), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Item: 'pencil' }),
    });
    expect(put.status).toBe(200);
    const after = JSON.parse(await runPython(CACHED, [file]));
    expect(after.Orders).toEqual([
      ['pencil', 2, 1.5, 3, '2024-03-02T00:00:00', 'many'],
      ['ink', 3, 2, 6, '2024-03-03T00:00:00', 'many'],
      ['pad', 1, 10, 10, '2024-03-04T00:00:00', 'one'],
    ]);
    expect(after.Notes).toEqual([['hello', 5]]);
  });
});
