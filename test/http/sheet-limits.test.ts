/**
 * A write that would take a tab past its source's limits is refused whole with 409 `conflict` naming the limit
 * and what is left, and writes nothing: an `.xlsx` sheet ends at row 1,048,576 (a `.csv` file too, so Excel still
 * opens it whole); a Google spreadsheet holds 10,000,000 cells over all its tabs' grids. Through real HTTP, on
 * files written by openpyxl and read back by openpyxl (and LibreOffice), and on the Sheets fake's grids.
 *
 * The tabs are near the limit without a million rows to read: their header sits low in the sheet (the header is
 * the first row with content), so the last row is near the end while the tab has a handful of data rows.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSpreadsheet } from '../../server/connections/connect.ts';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { seedFile } from '../fakes/google-sheets/admin-routes.ts';
import { fileHash } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import { runPython } from '../helpers/openpyxl.ts';

const run = promisify(execFile);
const MAX_ROWS = 1_048_576;
/** The header's row: data rows 1..4 are sheet rows 1,048,572..1,048,575, one row left. */
const HEADER_ROW = 1_048_571;

const WRITE_LOW_HEADER = `
import sys, openpyxl
path, top = sys.argv[1], int(sys.argv[2])
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Log'
ws.cell(row=top, column=1, value='Name')
ws.cell(row=top, column=2, value='Qty')
for i in range(1, 5):
    ws.cell(row=top + i, column=1, value='row %d' % i)
    ws.cell(row=top + i, column=2, value=i)
wb.save(path)
`;

/** The usual layout: the header in row 1, and a last row at 1,048,575 (the empty rows between are rows too). */
const WRITE_TOP_HEADER = `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Log'
ws.append(['Name', 'Qty'])
ws.append(['first', 1])
ws.cell(row=1048575, column=1, value='last')
ws.cell(row=1048575, column=2, value=2)
wb.save(sys.argv[1])
`;

/** Log's header at 1,048,568 heads a table over the next two rows; five plain rows follow, to 1,048,575. */
const WRITE_TABLE_ON_TOP = `
import sys, openpyxl
from openpyxl.worksheet.table import Table
top = 1048568
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Log'
ws.cell(row=top, column=1, value='Name')
ws.cell(row=top, column=2, value='Qty')
for i in range(1, 8):
    ws.cell(row=top + i, column=1, value='row %d' % i)
    ws.cell(row=top + i, column=2, value=i)
ws.add_table(Table(displayName='Top', ref='A%d:B%d' % (top, top + 2)))
wb.save(sys.argv[1])
`;

const READ_LAST_ROWS = `
import sys, json, openpyxl
ws = openpyxl.load_workbook(sys.argv[1]).active
print(json.dumps({'maxRow': ws.max_row, 'last': [ws.cell(row=ws.max_row, column=c).value for c in (1, 2)]}))
`;

let h: Harness;
let n = 0;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const post = (conn: ConnectionRecord, body: unknown) =>
  h.fetch(rowsPath(conn, 'Log'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function sheetIdOf(conn: ConnectionRecord): Promise<string> {
  const { sheets } = await (await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json();
  return sheets[0].sheet_id as string;
}

const batch = async (conn: ConnectionRecord, mutations: unknown[]) =>
  h.fetch(`/v1/sheets/${encodeURIComponent(await sheetIdOf(conn))}/rows:batchUpdate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mutations }),
  });

/** A workbook whose tab Log has its header at `HEADER_ROW` and four data rows below it, written by openpyxl. */
async function lowHeaderWorkbook(): Promise<string> {
  const file = path.join(h.dir, `full-${++n}.xlsx`);
  await runPython(WRITE_LOW_HEADER, [file, String(HEADER_ROW)]);
  return file;
}

/** The same rows as a `.csv`: blank lines above the header, as many as the workbook's empty rows. */
async function lowHeaderCsv(): Promise<string> {
  // The tab is named after the file: Log, in a folder of its own.
  const file = path.join(await mkdtemp(path.join(h.dir, 'csv-')), 'Log.csv');
  const rows = ['Name,Qty', ...[1, 2, 3, 4].map((i) => `row ${i},${i}`)];
  await writeFile(file, `${'\n'.repeat(HEADER_ROW - 1)}${rows.join('\n')}\n`);
  return file;
}

function expectRowsRefused(error: Record<string, unknown>, left: number, needed: number): void {
  expect(error).toMatchObject({
    code: 'conflict',
    limit: MAX_ROWS,
    limit_of: 'rows',
    left,
    needed,
  });
  expect(error.message).toContain('1,048,576 rows');
  expect(error.message).toContain(`${left} ${left === 1 ? 'row is' : 'rows are'} left`);
}

describe('.xlsx: a sheet ends at row 1,048,576', () => {
  it('refuses an append of two rows when one is left, naming the limit, and writes nothing', async () => {
    const file = await lowHeaderWorkbook();
    const conn = await h.connect(file);
    const before = await fileHash(file);

    const res = await post(conn, [
      { Name: 'a', Qty: 5 },
      { Name: 'b', Qty: 6 },
    ]);
    expect(res.status).toBe(409);
    expectRowsRefused((await res.json()).error, 1, 2);
    expect(await fileHash(file)).toBe(before);
  });

  it('refuses a batch with one append too many whole: its update is not written either', async () => {
    const file = await lowHeaderWorkbook();
    const conn = await h.connect(file);
    const before = await fileHash(file);

    const res = await batch(conn, [
      { op: 'update', row: 1, values: { Qty: 100 } },
      { op: 'append', values: { Name: 'fits', Qty: 5 } },
      { op: 'append', values: { Name: 'one too many', Qty: 6 } },
    ]);
    expect(res.status).toBe(409);
    expectRowsRefused((await res.json()).error, 1, 2);
    expect(await fileHash(file)).toBe(before);
    const first = await (await h.fetch(rowsPath(conn, 'Log', '/1'))).json();
    expect(first).toMatchObject({ Name: 'row 1', Qty: 1 });
  });

  it('takes the append that ends exactly on row 1,048,576, which openpyxl and LibreOffice open; then refuses the next', async () => {
    const file = await lowHeaderWorkbook();
    const conn = await h.connect(file);

    const fits = await post(conn, { Name: 'last', Qty: 9 });
    expect(fits.status).toBe(201);
    expect(JSON.parse(await runPython(READ_LAST_ROWS, [file]))).toEqual({
      maxRow: MAX_ROWS,
      last: ['last', 9],
    });
    const out = await mkdtemp(path.join(os.tmpdir(), 'sheetport-soffice-'));
    try {
      await run(
        'soffice',
        [
          `-env:UserInstallation=file://${out}/profile`,
          '--headless',
          '--convert-to',
          'csv',
          '--outdir',
          out,
          file,
        ],
        {
          timeout: 120_000,
        },
      );
      const lines = (await readFile(path.join(out, `${path.basename(file, '.xlsx')}.csv`), 'utf8'))
        .trimEnd()
        .split('\n');
      expect(lines.length).toBe(MAX_ROWS);
      expect(lines.at(-1)).toBe('last,9');
    } finally {
      await rm(out, { recursive: true, force: true });
    }

    const before = await fileHash(file);
    const full = await post(conn, { Name: 'over', Qty: 10 });
    expect(full.status).toBe(409);
    expectRowsRefused((await full.json()).error, 0, 1);
    expect(await fileHash(file)).toBe(before);

    // On a full sheet a batch that deletes as many rows as it appends still fits.
    const swap = await batch(conn, [
      { op: 'delete', row: 1 },
      { op: 'append', values: { Name: 'swapped in', Qty: 11 } },
    ]);
    expect(swap.status).toBe(200);
    expect(JSON.parse(await runPython(READ_LAST_ROWS, [file]))).toEqual({
      maxRow: MAX_ROWS,
      last: ['swapped in', 11],
    });
  });
});

describe('.xlsx: a table emptied by a delete keeps a row', () => {
  it('counts that row: deleting all the rows of a table and appending one more than the rows left is refused', async () => {
    const file = path.join(h.dir, `table-${++n}.xlsx`);
    await runPython(WRITE_TABLE_ON_TOP, [file]);
    const conn = await h.connect(file);
    const before = await fileHash(file);

    // Rows 1 and 2 are the table's: it keeps one, emptied, so the three appended rows start one lower.
    const res = await batch(conn, [
      { op: 'delete', row: 1 },
      { op: 'delete', row: 2 },
      ...['a', 'b', 'c'].map((Name) => ({ op: 'append', values: { Name } })),
    ]);
    expect(res.status).toBe(409);
    expectRowsRefused((await res.json()).error, 1, 2);
    expect(await fileHash(file)).toBe(before);
  });
});

describe('.xlsx: the header in row 1 counts', () => {
  it('takes 1 row below row 1,048,575 and refuses the next, with 1,048,574 data rows read', async () => {
    const file = path.join(h.dir, `top-${++n}.xlsx`);
    await runPython(WRITE_TOP_HEADER, [file]);
    const conn = await h.connect(file);
    const total = await h.fetch(rowsPath(conn, 'Log', '?limit=0&meta=true'));
    expect((await total.json()).meta.total).toBe(MAX_ROWS - 2);

    expect((await post(conn, { Name: 'fits', Qty: 3 })).status).toBe(201);
    expect(JSON.parse(await runPython(READ_LAST_ROWS, [file]))).toEqual({
      maxRow: MAX_ROWS,
      last: ['fits', 3],
    });
    const before = await fileHash(file);
    const over = await post(conn, { Name: 'over', Qty: 4 });
    expect(over.status).toBe(409);
    expectRowsRefused((await over.json()).error, 0, 1);
    expect(await fileHash(file)).toBe(before);
  });
});

describe('.csv: kept within the rows Excel opens', () => {
  it('refuses rows past line 1,048,576 with the file unchanged, and takes the one that ends on it', async () => {
    const file = await lowHeaderCsv();
    const conn = await h.connect(file);
    const before = await fileHash(file);

    const over = await post(conn, [
      { Name: 'a', Qty: 5 },
      { Name: 'b', Qty: 6 },
    ]);
    expect(over.status).toBe(409);
    expectRowsRefused((await over.json()).error, 1, 2);
    const overBatch = await batch(conn, [
      { op: 'update', row: 2, values: { Qty: 100 } },
      { op: 'append', values: { Name: 'a' } },
      { op: 'append', values: { Name: 'b' } },
    ]);
    expect(overBatch.status).toBe(409);
    expect(await fileHash(file)).toBe(before);

    const fits = await post(conn, { Name: 'last', Qty: 9 });
    expect(fits.status).toBe(201);
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    expect(lines.length).toBe(MAX_ROWS);
    expect(lines.at(-1)).toBe('last,9');
  });
});

describe('Google: 10,000,000 cells over all tabs', () => {
  let g: Harness;
  beforeAll(async () => {
    g = await startHarness({ kind: 'google' });
  });
  afterAll(() => g.close());

  /**
   * A spreadsheet whose grids hold exactly 10,000,000 cells: Log, 4 rows by 10 columns (a header and one data
   * row, two empty rows), and Other, the rest.
   */
  async function fullSpreadsheet(): Promise<{ conn: ConnectionRecord; id: string }> {
    const account = g.google!;
    const { id } = seedFile(account.fake.store, {
      name: `Full ${++n}`,
      sheets: [
        { title: 'Log', rowCount: 4, columnCount: 10 },
        { title: 'Other', rowCount: 999_996, columnCount: 10 },
      ],
    });
    await account.sheets.spreadsheets.values.update({
      spreadsheetId: id,
      range: 'Log!A1',
      valueInputOption: 'RAW',
      requestBody: {
        values: [
          ['Name', 'Qty'],
          ['first', 1],
        ],
      },
    });
    const { connection } = await connectSpreadsheet(
      g.context.connections,
      { location: id },
      g.context.sourceOptions,
    );
    return { conn: connection, id };
  }

  const gridOf = async (id: string) => {
    const { data } = await g.google!.sheets.spreadsheets.get({ spreadsheetId: id });
    return data.sheets?.map((s) => [
      s.properties?.gridProperties?.rowCount,
      s.properties?.gridProperties?.columnCount,
    ]);
  };
  const gPost = (conn: ConnectionRecord, body: unknown) =>
    g.fetch(rowsPath(conn, 'Log'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('fills the empty rows the grid has, then refuses a row that would grow it, naming the limit', async () => {
    const { conn, id } = await fullSpreadsheet();
    const one = await gPost(conn, { Name: 'second', Qty: 2 });
    expect(one.status).toBe(201);
    const two = await gPost(conn, [{ Name: 'third', Qty: 3 }]);
    expect(two.status).toBe(201);
    expect(await gridOf(id)).toEqual([
      [4, 10],
      [999_996, 10],
    ]);

    const version = (await g.google!.drive.files.get({ fileId: id, fields: 'version' })).data.version;
    const over = await gPost(conn, { Name: 'fourth', Qty: 4 });
    expect(over.status).toBe(409);
    const error = (await over.json()).error;
    expect(error).toMatchObject({
      code: 'conflict',
      limit: 10_000_000,
      limit_of: 'cells',
      left: 0,
      needed: 10,
    });
    expect(error.message).toContain('10,000,000 cells');
    expect(error.message).toContain('0 cells are left');
    expect((await g.google!.drive.files.get({ fileId: id, fields: 'version' })).data.version).toBe(version);
    const rows = await (await g.fetch(rowsPath(conn, 'Log'))).json();
    expect(rows.map((r: { Name: string }) => r.Name)).toEqual(['first', 'second', 'third']);
  });

  it('refuses a batch whose appends would grow the grid past the limit whole: its update is not made', async () => {
    const { conn, id } = await fullSpreadsheet();
    const version = (await g.google!.drive.files.get({ fileId: id, fields: 'version' })).data.version;
    const { sheets } = await (await g.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json();
    const res = await g.fetch(`/v1/sheets/${encodeURIComponent(sheets[0].sheet_id)}/rows:batchUpdate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        mutations: [
          { op: 'update', row: 1, values: { Qty: 100 } },
          ...['b', 'c', 'd'].map((Name) => ({ op: 'append', values: { Name } })),
        ],
      }),
    });
    expect(res.status).toBe(409);
    expect((await res.json()).error).toMatchObject({
      code: 'conflict',
      limit_of: 'cells',
      left: 0,
      needed: 10,
    });
    expect((await g.google!.drive.files.get({ fileId: id, fields: 'version' })).data.version).toBe(version);
    expect(await gridOf(id)).toEqual([
      [4, 10],
      [999_996, 10],
    ]);
    const rows = await (await g.fetch(rowsPath(conn, 'Log'))).json();
    expect(rows).toEqual([{ Name: 'first', Qty: 1 }]);
  });
});
