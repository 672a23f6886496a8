/**
 * A row read through the API and written back (whole, with one field changed) leaves every other cell exactly
 * as it was: dates stay dates with their number formats, formulas stay formulas. An ISO 8601 date, date-time or
 * time written into a date cell, or into a column whose cells are dates, is stored as a date with that cell's or
 * column's number format. Checked on a workbook written by openpyxl, read back by openpyxl.
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
ws.title = 'People'
ws.append(['Name', 'Born', 'Seen', 'At', 'Qty', 'Double', 'Code'])
rows = [
    ('ann', datetime.date(1990, 5, 17), datetime.datetime(2024, 3, 1, 9, 30), datetime.time(8, 15), 2, '007'),
    ('bob', datetime.date(1985, 1, 2), datetime.datetime(2024, 3, 2, 18, 0), datetime.time(17, 45), 3, '008'),
    ('cy', None, datetime.datetime(2024, 3, 3, 7, 5), datetime.time(6, 0), 4, '009'),
]
for i, (name, born, seen, at, qty, code) in enumerate(rows, start=2):
    ws.append([name, born, seen, at, qty, '=E%d*2' % i, code])
    ws.cell(i, 3).number_format = 'yyyy-mm-dd hh:mm'
    ws.cell(i, 4).number_format = 'hh:mm'
    ws.cell(i, 5).number_format = '0.00'
    if born is not None:
        ws.cell(i, 2).number_format = 'dd/mm/yyyy'
wb.save(sys.argv[1])
`;

const READ = `
import json, sys, datetime, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['People']
def plain(v):
    return v.isoformat() if isinstance(v, (datetime.datetime, datetime.date, datetime.time)) else v
print(json.dumps([[{'value': plain(c.value), 'type': c.data_type, 'date': c.is_date, 'fmt': c.number_format}
                   for c in row] for row in ws.iter_rows(min_row=2)]))
`;

interface Cell {
  value: unknown;
  type: string;
  date: boolean;
  fmt: string;
}

let h: Harness;
let file: string;
let book: ConnectionRecord;

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'people.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
});
afterAll(async () => {
  await h.close();
});

const read = async (): Promise<Cell[][]> => JSON.parse(await runPython(READ, [file]));

async function put(row: number, body: Record<string, unknown>): Promise<void> {
  const res = await h.fetch(rowsPath(book, 'People', `/${row}`), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}

describe('a row read and written back', () => {
  it('keeps its dates, times, number formats and formulas when one field changes', async () => {
    const before = await read();
    const res = await h.fetch(rowsPath(book, 'People', '/1'));
    const row = await res.json();
    expect(row).toEqual({
      Name: 'ann',
      Born: '1990-05-17',
      Seen: '2024-03-01T09:30:00',
      At: '08:15:00',
      Qty: 2,
      Double: 4,
      Code: '007',
    });
    await put(1, { ...row, Name: 'anne' });
    const after = await read();
    expect(after[0]![0]!.value).toBe('anne');
    expect(after[0]!.slice(1)).toEqual(before[0]!.slice(1));
    expect(after[0]![1]).toMatchObject({ date: true, fmt: 'dd/mm/yyyy', value: '1990-05-17T00:00:00' });
    expect(after[0]![5]!.value).toBe('=E2*2');
    expect(after.slice(1)).toEqual(before.slice(1));
  });

  it('stores a changed ISO date, date-time or time in a date cell as a date with that cell format', async () => {
    await put(2, { Born: '1986-02-03', Seen: '2024-04-05T10:11:12', At: '12:34:56' });
    const [, bob] = await read();
    expect(bob![1]).toEqual({ value: '1986-02-03T00:00:00', type: 'd', date: true, fmt: 'dd/mm/yyyy' });
    expect(bob![2]).toEqual({ value: '2024-04-05T10:11:12', type: 'd', date: true, fmt: 'yyyy-mm-dd hh:mm' });
    expect(bob![3]).toEqual({ value: '12:34:56', type: 'd', date: true, fmt: 'hh:mm' });
    const api = await (await h.fetch(rowsPath(book, 'People', '/2'))).json();
    expect(api).toMatchObject({ Born: '1986-02-03', Seen: '2024-04-05T10:11:12', At: '12:34:56' });
  });

  it("stores an ISO date in an empty cell of a date column, and in an appended row, with the column's format", async () => {
    await put(3, { Born: '1999-12-31' });
    const post = await h.fetch(rowsPath(book, 'People'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'dee', Born: '2000-01-02', Seen: '2024-05-06T07:08:09', At: '23:59:00' }),
    });
    expect(post.status).toBe(201);
    const [, , cy, dee] = await read();
    expect(cy![1]).toEqual({ value: '1999-12-31T00:00:00', type: 'd', date: true, fmt: 'dd/mm/yyyy' });
    expect(dee![1]).toEqual({ value: '2000-01-02T00:00:00', type: 'd', date: true, fmt: 'dd/mm/yyyy' });
    expect(dee![2]).toEqual({ value: '2024-05-06T07:08:09', type: 'd', date: true, fmt: 'yyyy-mm-dd hh:mm' });
    expect(dee![3]).toEqual({ value: '23:59:00', type: 'd', date: true, fmt: 'hh:mm' });

    // Outside date cells and columns, text that looks like a date stays text.
    await put(1, { Code: '2024-03-01' });
    const [ann] = await read();
    expect(ann![6]).toMatchObject({ value: '2024-03-01', type: 's' });
  });
});

/** Google keeps the same rule: the cells as the Sheets fake holds them (value, formula, number format). */
describe('google: a row read and written back', () => {
  let g: Harness;
  let sheet: ConnectionRecord;
  const serial = (iso: string) => Date.parse(`${iso}Z`) / 86_400_000 + 25_569;

  beforeAll(async () => {
    g = await startHarness({ kind: 'google' });
    const seed = path.join(g.dir, 'people.xlsx');
    await runPython(MAKE, [seed]);
    sheet = (await g.connectBook(seed)).connection;
  });
  afterAll(async () => {
    await g.close();
  });

  /** Row `row` (1-based sheet row) as Google holds it: per cell its value, formula and number format. */
  async function stored(row: number) {
    const { data } = await g.google!.sheets.spreadsheets.get({
      spreadsheetId: sheet.spreadsheetId,
      ranges: [`People!A${row}:G${row}`],
      includeGridData: true,
    });
    const values = data.sheets?.[0]?.data?.[0]?.rowData?.[0]?.values ?? [];
    return values.map((v) => ({
      value: v.effectiveValue?.numberValue ?? v.effectiveValue?.stringValue ?? null,
      formula: v.userEnteredValue?.formulaValue ?? null,
      format: v.userEnteredFormat?.numberFormat ?? null,
    }));
  }

  async function write(method: string, rest: string, body: Record<string, unknown>): Promise<void> {
    const res = await g.fetch(rowsPath(sheet, 'People', rest), {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(method === 'POST' ? 201 : 200);
  }

  it('keeps dates and formulas on a whole-row PUT, and stores ISO text in date cells and columns as dates', async () => {
    const before = await stored(2);
    const row = await (await g.fetch(rowsPath(sheet, 'People', '/1'))).json();
    expect(row).toMatchObject({ Born: '1990-05-17', Seen: '2024-03-01T09:30:00', At: '08:15:00' });
    await write('PUT', '/1', { ...row, Name: 'anne' });
    const after = await stored(2);
    expect(after[0]!.value).toBe('anne');
    expect(after.slice(1)).toEqual(before.slice(1));
    expect(after[1]!.format).toEqual({ type: 'DATE', pattern: 'dd/mm/yyyy' });

    await write('PUT', '/2', { Born: '1986-02-03', Seen: '2024-04-05T10:11:12' });
    const bob = await stored(3);
    expect(bob[1]).toEqual({
      value: serial('1986-02-03T00:00:00'),
      formula: null,
      format: { type: 'DATE', pattern: 'dd/mm/yyyy' },
    });
    expect(bob[2]!.value).toBeCloseTo(serial('2024-04-05T10:11:12'), 8);
    expect(bob[2]!.format).toEqual({ type: 'DATE_TIME', pattern: 'yyyy-mm-dd hh:mm' });

    await write('PUT', '/3', { Born: '1999-12-31' });
    await write('POST', '', { Name: 'dee', Born: '2000-01-02', Code: '2024-03-01' });
    const cy = await stored(4);
    const dee = await stored(5);
    expect(cy[1]).toMatchObject({
      value: serial('1999-12-31T00:00:00'),
      format: { type: 'DATE', pattern: 'dd/mm/yyyy' },
    });
    expect(dee[1]).toMatchObject({
      value: serial('2000-01-02T00:00:00'),
      format: { type: 'DATE', pattern: 'dd/mm/yyyy' },
    });
    expect(dee[6]).toMatchObject({ value: '2024-03-01' });
  });
});
