/**
 * Formula results through the API, for a workbook written by openpyxl (which never writes cached results):
 * computed on read (A1, ranges, cross-tab, defined names, structured references), `?values=formula`, computed
 * again after writes (dependents on other rows and tabs), an Excel table's calculated column filled in for an
 * appended row, and the results cached in the file where openpyxl and LibreOffice read them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const MAKE = `
import sys, openpyxl
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.table import Table, TableFormula
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Orders'
ws.append(['Item', 'Qty', 'Price', 'Total', 'Taxed', 'Label'])
for i, (item, qty, price) in enumerate([('pen', 2, 1.5), ('ink', 3, 2), ('pad', 1, 10)], start=2):
    ws.append([item, qty, price, f'=B{i}*C{i}', f'=D{i}*(1+Rate)', f'=UPPER(A{i})&"-"&Settings!B3'])
ws.append(['all', '=SUM(B2:B4)', '=MAX(C2:C4)', '=SUMIFS(D2:D4,B2:B4,">1")', '=IF(B5>5,"many","few")', '=COUNTA(A2:A4)'])
settings = wb.create_sheet('Settings')
settings.append(['Setting', 'Value'])
settings.append(['Rate', 0.2])
settings.append(['Tag', 'x'])
wb.defined_names.append(DefinedName('Rate', attr_text='Settings!$B$2'))
lines = wb.create_sheet('Lines')
lines.append(['Qty', 'Price', 'Amount'])
amount = 'Lines[[#This Row],[Qty]]*Lines[[#This Row],[Price]]'
for qty, price in [(1, 2), (3, 4)]:
    lines.append([qty, price, '=' + amount])
table = Table(displayName='Lines', ref='A1:C3')
table._initialise_columns()
for column, name in zip(table.tableColumns, ['Qty', 'Price', 'Amount']):
    column.name = name
table.tableColumns[2].calculatedColumnFormula = TableFormula(attr_text=amount)
lines.add_table(table)
summary = wb.create_sheet('Summary')
summary.append(['What', 'Value'])
summary.append(['lines', '=SUM(Lines[Amount])'])
summary.append(['orders', '=Orders!D2+Orders!D3+Orders!D4'])
wb.save(sys.argv[1])
`;

const CACHED = `
import json, sys, openpyxl
values = openpyxl.load_workbook(sys.argv[1], data_only=True)
formulas = openpyxl.load_workbook(sys.argv[1])
print(json.dumps({
  name: {'values': [[c.value for c in r] for r in values[name].iter_rows()],
         'formulas': [[c.value for c in r] for r in formulas[name].iter_rows()]}
  for name in values.sheetnames
}))
`;

let h: Harness;
let file: string;
let book: ConnectionRecord;
let formulaKey: string;

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'book.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
  formulaKey = await h.createKey({ name: 'formulas', scope: 'read_write', allowFormulas: true });
});
afterAll(async () => {
  await h.close();
});

async function rows(sheet: string, query = ''): Promise<Record<string, unknown>[]> {
  const res = await h.fetch(rowsPath(book, sheet, query));
  expect(res.status, sheet).toBe(200);
  return res.json();
}

describe('formulas in a workbook without cached results', () => {
  it('read as their computed results: A1, ranges, cross-tab, defined names, structured references', async () => {
    expect(await rows('Orders')).toEqual([
      { Item: 'pen', Qty: 2, Price: 1.5, Total: 3, Taxed: 3.6, Label: 'PEN-x' },
      { Item: 'ink', Qty: 3, Price: 2, Total: 6, Taxed: 7.2, Label: 'INK-x' },
      { Item: 'pad', Qty: 1, Price: 10, Total: 10, Taxed: 12, Label: 'PAD-x' },
      { Item: 'all', Qty: 6, Price: 10, Total: 9, Taxed: 'many', Label: 3 },
    ]);
    expect(await rows('Lines')).toEqual([
      { Qty: 1, Price: 2, Amount: 2 },
      { Qty: 3, Price: 4, Amount: 12 },
    ]);
    expect(await rows('Summary')).toEqual([
      { What: 'lines', Value: 14 },
      { What: 'orders', Value: 19 },
    ]);
  });

  it('show their formula text with ?values=formula, and their displayed result with ?values=formatted', async () => {
    const [first] = await rows('Orders', '?values=formula&limit=1');
    expect(first).toEqual({
      Item: 'pen',
      Qty: 2,
      Price: 1.5,
      Total: '=B2*C2',
      Taxed: '=D2*(1+Rate)',
      Label: '=UPPER(A2)&"-"&Settings!B3',
    });
    const one = await h.fetch(rowsPath(book, 'Summary', '/1?values=formula'));
    expect(await one.json()).toEqual({ What: 'lines', Value: '=SUM(Lines[Amount])' });
    const [formatted] = await rows('Orders', '?values=formatted&limit=1');
    expect(formatted).toMatchObject({ Total: '3', Taxed: '3.6' });
    const bad = await h.fetch(rowsPath(book, 'Orders', '?values=formulas'));
    expect(bad.status).toBe(400);
  });

  it('are computed again after a write, on other rows and other tabs, and cached in the file', async () => {
    const put = await h.fetch(rowsPath(book, 'Orders', '/1'), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Qty: 4 }),
    });
    expect(put.status).toBe(200);
    const orders = await rows('Orders');
    expect(orders[0]).toMatchObject({ Qty: 4, Total: 6, Taxed: 7.2 });
    expect(orders[3]).toMatchObject({ Qty: 8, Total: 12, Taxed: 'many' });
    expect((await rows('Summary'))[1]).toEqual({ What: 'orders', Value: 22 });

    // A change on the tab the defined name and a cross-tab reference point at.
    for (const [row, value] of [
      [1, 0.5],
      [2, 'y'],
    ] as const) {
      const settings = await h.fetch(rowsPath(book, 'Settings', `/${row}`), {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Value: value }),
      });
      expect(settings.status).toBe(200);
    }
    const relabelled = await rows('Orders');
    expect(relabelled.map((r) => r.Label)).toEqual(['PEN-y', 'INK-y', 'PAD-y', 3]);
    expect(relabelled.map((r) => r.Taxed)).toEqual([9, 9, 15, 'many']);

    const cached = JSON.parse(await runPython(CACHED, [file]));
    expect(cached.Orders.values[1]).toEqual(['pen', 4, 1.5, 6, 9, 'PEN-y']);
    expect(cached.Orders.values[4]).toEqual(['all', 8, 10, 12, 'many', 3]);
    expect(cached.Orders.formulas[1][3]).toBe('=B2*C2');
    expect(cached.Summary.values[2]).toEqual(['orders', 22]);
    const workbookXml = await unzipText(file, 'xl/workbook.xml');
    expect(workbookXml).toMatch(/fullCalcOnLoad="1"/);
  });

  it("fills an Excel table's calculated column in an appended row, and recomputes what sums the table", async () => {
    const post = await h.fetch(rowsPath(book, 'Lines'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Qty: 5, Price: 2 }),
    });
    expect(post.status).toBe(201);
    expect(await rows('Lines')).toEqual([
      { Qty: 1, Price: 2, Amount: 2 },
      { Qty: 3, Price: 4, Amount: 12 },
      { Qty: 5, Price: 2, Amount: 10 },
    ]);
    expect((await rows('Lines', '?values=formula'))[2]).toEqual({
      Qty: 5,
      Price: 2,
      Amount: '=Lines[[#This Row],[Qty]]*Lines[[#This Row],[Price]]',
    });
    expect((await rows('Summary'))[0]).toEqual({ What: 'lines', Value: 24 });
    const cached = JSON.parse(await runPython(CACHED, [file]));
    expect(cached.Lines.values[3]).toEqual([5, 2, 10]);
    expect(await unzipText(file, 'xl/tables/table1.xml')).toMatch(/ref="A1:C4"/);
  });

  it('computes a formula written by a formulas key, and answers null for one it cannot compute', async () => {
    const post = await h.fetch(rowsPath(book, 'Summary'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${formulaKey}` },
      body: JSON.stringify([
        { What: 'average', Value: '=AVERAGE(Orders!C2:C4)' },
        { What: 'unknown', Value: '=NOSUCHFUNCTION(1)' },
        { What: 'error', Value: '=1/0' },
      ]),
    });
    expect(post.status).toBe(201);
    expect((await rows('Summary')).slice(2)).toEqual([
      { What: 'average', Value: 4.5 },
      { What: 'unknown', Value: null },
      { What: 'error', Value: '#DIV/0!' },
    ]);
  });

  it('reads the same in LibreOffice, which computes them itself', async () => {
    const out = path.join(h.dir, 'lo');
    await promisify(execFile)(
      'soffice',
      [
        '--headless',
        `-env:UserInstallation=file://${out}/profile`,
        '--convert-to',
        'csv',
        '--outdir',
        out,
        file,
      ],
      { timeout: 120_000 },
    );
    const csv = await fs.readFile(path.join(out, 'book.csv'), 'utf8');
    const api = await rows('Orders');
    const lines = csv.trim().split(/\r?\n/).slice(1);
    expect(lines.map((line) => line.split(',').slice(3, 5).map(Number))).toEqual(
      api.map((r) => (typeof r.Taxed === 'number' ? [r.Total, r.Taxed] : [r.Total, Number.NaN])),
    );
  }, 150_000);
});

async function unzipText(zip: string, part: string): Promise<string> {
  return runPython('import sys, zipfile\nprint(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode())', [
    zip,
    part,
  ]);
}
