/**
 * A formula that would make more cells than the service has memory for is left uncomputed, as Excel leaves one
 * that "ran out of resources", and the rest of the file is served (formulas/cell-budget.ts). A column of 65,534
 * cells times a row of 16,382 (each read whole: ranges of up to 65,536 cells are) is a billion cells; in a file
 * of 580 KB that openpyxl writes, the read took 21 s and 2.4 GB and was then refused as needing more than 4 GB.
 * Over HTTP: the file is read with those cells null and the others computed, a write computes the others again
 * and answers, and openpyxl reads the saved file back with the heavy formulas kept and no result for them.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Grid'
ws.append(['N', 'Double', 'Pairs', 'Product', 'Joined', 'Width'])
for r in range(2, 65537):
    ws.cell(row=r, column=1, value=r)
ws['B2'] = '=A2*2'
ws['C2'] = '=SUMPRODUCT(A3:A65536*G1:XFD1)'
ws['D2'] = '=SUM(MMULT(A3:A65536,G1:XFD1))'
ws['E2'] = '=LEN(REPT("x",20000)&REPT("y",20000))'
ws['F2'] = '=SUMPRODUCT(A3:A65536*G1:J1)'
ws['G1'] = 1
wb.save(sys.argv[1])
`;

const SAVED = `
import json, sys, openpyxl
f = openpyxl.load_workbook(sys.argv[1])['Grid']
v = openpyxl.load_workbook(sys.argv[1], data_only=True)['Grid']
print(json.dumps({'formulas': [c.value for c in f[2]][1:6], 'cached': [c.value for c in v[2]][:6]}))
`;

let h: Harness;
let book: ConnectionRecord;
let file: string;

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'grid.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
}, 120_000);
afterAll(async () => {
  await h.close();
});

// 65,534 cells by one (G1 holds 1, H1:J1 are blank): within the budget, the sum of A3:A65536.
const columnSum = (65536 * 65537) / 2 - 1 - 2;

it('serves the file with the formulas past their budget uncomputed, and computes the rest', async () => {
  const rows = await (await h.fetch(`${rowsPath(book, 'Grid')}?limit=1`)).json();
  expect(rows[0]).toMatchObject({
    N: 2,
    Double: 4,
    Pairs: null,
    Product: null,
    Joined: '#VALUE!',
    Width: columnSum,
  });
}, 60_000);

it('computes the rest again on a write, answers reads beside it, and saves what openpyxl reads', async () => {
  // Row 2 is A3, which every formula of row 1 but Double reads: all of them are computed again.
  const write = h.fetch(rowsPath(book, 'Grid', '/2'), {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ N: 1003 }),
  });
  const beside = await h.fetch(`${rowsPath(book, 'Grid')}?limit=1&offset=5`);
  expect(beside.status).toBe(200);
  expect((await write).status).toBe(200);
  const patched = await (await h.fetch(`${rowsPath(book, 'Grid')}?limit=1`)).json();
  expect(patched[0]).toMatchObject({ N: 2, Pairs: null, Product: null, Width: columnSum + 1000 });

  const second = h.fetch(rowsPath(book, 'Grid', '/1'), {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ N: 10 }),
  });
  expect((await second).status).toBe(200);

  const after = await (await h.fetch(`${rowsPath(book, 'Grid')}?limit=1`)).json();
  expect(after[0]).toMatchObject({ N: 10, Double: 20, Pairs: null, Product: null });

  const saved = JSON.parse(await runPython(SAVED, [file]));
  expect(saved.formulas).toEqual([
    '=A2*2',
    '=SUMPRODUCT(A3:A65536*G1:XFD1)',
    '=SUM(MMULT(A3:A65536,G1:XFD1))',
    '=LEN(REPT("x",20000)&REPT("y",20000))',
    '=SUMPRODUCT(A3:A65536*G1:J1)',
  ]);
  expect(saved.cached).toEqual([10, 20, null, null, '#VALUE!', columnSum + 1000]);
}, 120_000);
