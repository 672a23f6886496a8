/**
 * Numbers written into date cells, and the early serials of Excel's 1900 date system, through real HTTP on every
 * kind and store: a workbook written by openpyxl (read back by openpyxl, and by LibreOffice where it agrees with
 * Excel), and the same spreadsheet on the Sheets fake through the googleapis client.
 *
 * A number a date cell cannot show as a date is refused with 400 naming the field, and nothing is written; the
 * largest legal serial and a time of day are stored and read back as written; serials 1 to 61 read as Excel
 * shows them (its 1900-02-29 is serial 60) in a workbook, and from 1899-12-30 in Google Sheets, alike in typed and
 * formatted form; such rows written back unchanged leave the spreadsheet as it was.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileHash, writeCsv } from '../helpers/fixtures.ts';
import {
  type ConnectedBook,
  forEachKind,
  type Harness,
  rowsPath,
  startHarness,
  type TestResponse,
} from '../helpers/harness.ts';
import { expectDocumentedError } from '../helpers/openapi-doc.ts';
import { runPython } from '../helpers/openpyxl.ts';

const run = promisify(execFile);

/** The serial of 9999-12-31T23:59:59.999, the last instant a date cell shows (both systems count from it). */
const LAST_1900 = (Date.UTC(9999, 11, 31, 23, 59, 59, 999) - Date.UTC(1899, 11, 30)) / 86_400_000;
const LAST_1904 = (Date.UTC(9999, 11, 31, 23, 59, 59, 999) - Date.UTC(1904, 0, 1)) / 86_400_000;
/** Numbers no date cell shows as a date: too large, negative, past 9999-12-31. */
const REFUSED = [1e308, -1e308, 2 ** 53, -1, 2958466];

/** Serials 1 to 61 and a time of day, as Excel shows them (yyyy-mm-dd; hh:mm:ss). */
const EARLY = [1, 42, 59, 60, 61, 0.5];
const EXCEL_SHOWS = ['1900-01-01', '1900-02-11', '1900-02-28', '1900-02-29', '1900-03-01', '12:00:00'];
/** The same serials as Google Sheets shows them: days from 1899-12-30, no 1900-02-29. */
const SHEETS_SHOWS = ['1899-12-31', '1900-02-10', '1900-02-27', '1900-02-28', '1900-03-01', '12:00:00'];

/**
 * Tab Dates: Name, When (a date format), Note. Rows 1-3 are dates (row 3 is the one written), rows 4-9 the
 * early serials, row 10 a date (so appended rows copy a date style). openpyxl writes the serials as they are.
 */
const MAKE = `
import sys, openpyxl
from openpyxl.utils.datetime import CALENDAR_MAC_1904
wb = openpyxl.Workbook()
if sys.argv[2] == '1904':
    wb.epoch = CALENDAR_MAC_1904
ws = wb.active
ws.title = 'Dates'
ws.append(['Name', 'When', 'Note'])
rows = [('a', 45000), ('b', 45001.5), ('c', 45002)] + [('early%d' % i, s) for i, s in enumerate(${JSON.stringify(EARLY)})] + [('z', 45010)]
for name, serial in rows:
    ws.append([name, serial, 'n'])
    ws.cell(ws.max_row, 2).number_format = 'hh:mm:ss' if serial == 0.5 else 'yyyy-mm-dd hh:mm:ss' if serial == 45001.5 else 'yyyy-mm-dd'
wb.save(sys.argv[1])
`;

/** What openpyxl (an independent reader that follows Excel's 1900 calendar) reads in column B. */
const READ_DATES = `
import sys, json, datetime, openpyxl
ws = openpyxl.load_workbook(sys.argv[1])['Dates']
out = []
for (v,) in ws.iter_rows(min_row=2, min_col=2, max_col=2, values_only=True):
    out.append(v.isoformat() if isinstance(v, (datetime.date, datetime.time)) else v)
print(json.dumps(out))
`;

async function errorOf(res: TestResponse): Promise<Record<string, unknown>> {
  const { request_id: _, ...rest } = (await res.json()).error;
  return rest;
}

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** The `<v>` a workbook file holds for a cell: the serial itself, not a reader's date. */
async function rawValue(file: string, ref: string): Promise<string | undefined> {
  const zip = await JSZip.loadAsync(await readFile(file));
  const sheet = await zip.file('xl/worksheets/sheet1.xml')!.async('string');
  return new RegExp(`<c r="${ref}"[^>]*>(?:<f>[^<]*</f>)?<v>([^<]*)</v>`).exec(sheet)?.[1];
}

/** The stored value of a cell: the file's serial text, or Google's unformatted value, as a number. */
async function stored(book: ConnectedBook, ref: string): Promise<unknown> {
  if (book.file) return Number(await rawValue(book.file, ref));
  return await book.cell('Dates', ref);
}

/** Column B as LibreOffice shows it, converted to CSV by soffice (its own profile, so runs never collide). */
async function libreOfficeColumn(file: string): Promise<string[]> {
  const out = await mkdtemp(path.join(os.tmpdir(), 'sheetport-soffice-'));
  try {
    await run(
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
    const csv = await readFile(path.join(out, `${path.basename(file, '.xlsx')}.csv`), 'utf8');
    return csv
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',')[1] as string);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

forEachKind((kind, store) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ kind, store });
  });
  afterAll(() => h.close());

  /** The Dates workbook connected as the harness's kind, with its tab's sheet_id. */
  async function dates(name: string): Promise<{ book: ConnectedBook; sheetId: string }> {
    const file = path.join(h.dir, `${name}.xlsx`);
    await runPython(MAKE, [file, '1900']);
    const book = await h.connectBook(file);
    const { sheets } = await (await h.fetch(`/v1/spreadsheets/${book.connection.spreadsheetId}`)).json();
    return { book, sheetId: encodeURIComponent(sheets[0].sheet_id) };
  }

  /** Rows 4 to 9, the early serials. */
  async function earlyRows(sheetId: string, query = ''): Promise<Record<string, unknown>[]> {
    const res = await h.fetch(`/v1/sheets/${sheetId}/rows?offset=3&limit=6${query}`);
    expect(res.status).toBe(200);
    return (await res.json()).data;
  }

  describe('a number written into a date cell', () => {
    it('is refused naming the field when no date shows it, by PATCH, PUT, append and batch; nothing changes', async () => {
      const { book, sheetId } = await dates('refused');
      const before = await book.fingerprint();
      const rowBefore = await (await h.fetch(`/v1/sheets/${sheetId}/rows/3`)).json();
      const batch = `/v1/sheets/${sheetId}/rows:batchUpdate`;
      for (const value of REFUSED) {
        const patched = await h.fetch(`/v1/sheets/${sheetId}/rows/3`, json('PATCH', { When: value }));
        expect(patched.status, String(value)).toBe(400);
        const error = await errorOf(patched);
        expect(error, String(value)).toMatchObject({ code: 'invalid_body', field: 'When' });
        expect(error.message).toContain(`${value}`);
        expect(error.message).toContain('0 to 2958465.9999999884 (9999-12-31T23:59:59.999)');
        expectDocumentedError(error, 400, 'patch', '/v1/sheets/{sheetId}/rows/{row}');

        const put = await h.fetch(
          rowsPath(book.connection, 'Dates', '/3'),
          json('PUT', { ...rowBefore, When: value }),
        );
        expect(put.status, String(value)).toBe(400);
        expect(await errorOf(put)).toMatchObject({ code: 'invalid_body', field: 'When' });

        // An appended row copies the date style of the row above it.
        const appended = await h.fetch(
          rowsPath(book.connection, 'Dates'),
          json('POST', { Name: 'new', When: value }),
        );
        expect(appended.status, String(value)).toBe(400);
        expect(await errorOf(appended)).toMatchObject({ code: 'invalid_body', field: 'When' });

        const mutations = [
          { op: 'update', row: 1, values: { Note: 'changed' } },
          { op: 'append', values: { Name: 'new', When: 45100 } },
          { op: 'update', row: 3, values: { When: value } },
        ];
        const refused = await h.fetch(batch, json('POST', { mutations }));
        expect(refused.status, String(value)).toBe(400);
        const batchError = await errorOf(refused);
        expect(batchError).toMatchObject({ code: 'invalid_body', field: 'When', index: 2 });
        expectDocumentedError(batchError, 400, 'post', '/v1/sheets/{sheetId}/rows:batchUpdate');
        const appendedInBatch = await h.fetch(
          batch,
          json('POST', { mutations: [mutations[0], { op: 'append', values: { Name: 'new', When: value } }] }),
        );
        expect(await errorOf(appendedInBatch)).toMatchObject({
          code: 'invalid_body',
          field: 'When',
          index: 1,
        });
      }
      expect(await book.fingerprint()).toBe(before);
      expect(await stored(book, 'B4')).toBe(45002);
      expect(await (await h.fetch(`/v1/sheets/${sheetId}/rows/3`)).json()).toEqual(rowBefore);
      expect(rowBefore.When).toBe('2023-03-17');
    });

    it('stores the largest legal serial and a time of day as written, and a number in another column', async () => {
      const { book, sheetId } = await dates('accepted');
      const row3 = `/v1/sheets/${sheetId}/rows/3`;
      expect((await h.fetch(row3, json('PATCH', { When: LAST_1900 }))).status).toBe(200);
      expect((await (await h.fetch(row3)).json()).When).toBe('9999-12-31T23:59:59.999');
      expect(await stored(book, 'B4')).toBe(LAST_1900);
      if (book.file) {
        expect(JSON.parse(await runPython(READ_DATES, [book.file]))[2]).toBe('9999-12-31T23:59:59.999000');
      }
      expect((await h.fetch(row3, json('PATCH', { When: 0.5 }))).status).toBe(200);
      expect((await (await h.fetch(row3)).json()).When).toBe('12:00:00');
      expect(await stored(book, 'B4')).toBe(0.5);
      if (book.file) expect(JSON.parse(await runPython(READ_DATES, [book.file]))[2]).toBe('12:00:00');

      // Only date cells hold dates: a huge number elsewhere is a number.
      expect((await h.fetch(row3, json('PATCH', { Note: 1e308 }))).status).toBe(200);
      expect((await (await h.fetch(row3)).json()).Note).toBe(1e308);
    });
  });

  describe('early serials', () => {
    const shows = kind === 'google' ? SHEETS_SHOWS : EXCEL_SHOWS;

    it('read the same typed and formatted, as the spreadsheet program shows them', async () => {
      const { book, sheetId } = await dates('early');
      const typed = await earlyRows(sheetId);
      const formatted = await earlyRows(sheetId, '&values=formatted');
      expect(formatted.map((r) => r.When)).toEqual(shows);
      // Excel's 1900-02-29 is no ISO date: a workbook's serial 60 reads as its number, and shows as Excel shows it.
      const expectedTyped = kind === 'google' ? shows : shows.map((text, i) => (EARLY[i] === 60 ? 60 : text));
      expect(typed.map((r) => r.When)).toEqual(expectedTyped);
      if (!book.file) return;
      // openpyxl follows Excel's calendar (it reads 60 as 1900-02-28, so that one is left out).
      const openpyxl = (JSON.parse(await runPython(READ_DATES, [book.file])) as string[]).slice(3, 9);
      const dayOf = (iso: string) => iso.replace(/T00:00:00$/, '');
      EARLY.forEach((serial, i) => {
        if (serial !== 60) expect(dayOf(openpyxl[i] as string), String(serial)).toBe(shows[i]);
      });
      // LibreOffice counts every serial from 1899-12-30 (so below 61 it shows a day earlier than Excel does):
      // it agrees from 1900-03-01 on, and on the time of day.
      const office = (await libreOfficeColumn(book.file)).slice(3, 9);
      expect(office[4]).toBe('1900-03-01');
      expect(office[5]).toMatch(/^12:00:00/);
    });

    it('rows read and written back unchanged leave the spreadsheet as it was', async () => {
      const { book, sheetId } = await dates('write-back');
      const before = await book.fingerprint();
      const rows = await earlyRows(sheetId);
      for (const [i, row] of rows.entries()) {
        const res = await h.fetch(`/v1/sheets/${sheetId}/rows/${4 + i}`, json('PUT', row));
        expect(res.status, JSON.stringify(row)).toBe(200);
      }
      expect(await book.fingerprint()).toBe(before);
    });

    it('ISO text of an early date written into a date cell stores the serial the program uses', async () => {
      const { book, sheetId } = await dates('early-iso');
      const row3 = `/v1/sheets/${sheetId}/rows/3`;
      for (const [i, text] of shows.entries()) {
        if (!text.includes('-') || text === '1900-02-29') continue;
        expect((await h.fetch(row3, json('PATCH', { When: text }))).status, text).toBe(200);
        expect(await stored(book, 'B4'), text).toBe(EARLY[i]);
        expect((await (await h.fetch(row3)).json()).When, text).toBe(text);
      }
      // Dates before Excel's first day: Google stores them as dates; a workbook keeps the text, as Excel does.
      for (const text of ['1899-12-31', '1850-06-01']) {
        expect((await h.fetch(row3, json('PATCH', { When: text }))).status, text).toBe(200);
        expect((await (await h.fetch(row3)).json()).When, text).toBe(text);
        if (book.file) expect(JSON.parse(await runPython(READ_DATES, [book.file]))[2]).toBe(text);
      }
    });
  });
});

describe("workbooks in Excel's 1904 date system", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('hold the serials 0 to 9999-12-31 of their own system', async () => {
    const file = path.join(h.dir, 'mac.xlsx');
    await runPython(MAKE, [file, '1904']);
    const book = await h.connectBook(file);
    const row3 = rowsPath(book.connection, 'Dates', '/3');
    const before = await fileHash(file);
    for (const value of [-1, LAST_1904 + 1e-6, 2957004]) {
      const res = await h.fetch(row3, json('PATCH', { When: value }));
      expect(res.status, String(value)).toBe(400);
      expect((await errorOf(res)).message).toContain('0 to 2957003.9999999884 (9999-12-31T23:59:59.999)');
    }
    expect(await fileHash(file)).toBe(before);
    expect((await h.fetch(row3, json('PATCH', { When: LAST_1904 }))).status).toBe(200);
    expect((await (await h.fetch(row3)).json()).When).toBe('9999-12-31T23:59:59.999');
    expect(JSON.parse(await runPython(READ_DATES, [file]))[2]).toBe('9999-12-31T23:59:59.999000');
    // A bare time has no serial here (day zero is 1904-01-01): it stays the text it was given.
    expect((await h.fetch(row3, json('PATCH', { When: '09:30:00' }))).status).toBe(200);
    expect((await (await h.fetch(row3)).json()).When).toBe('09:30:00');
    expect(JSON.parse(await runPython(READ_DATES, [file]))[2]).toBe('09:30:00');
    expect((await h.fetch(row3, json('PATCH', { When: 0 }))).status).toBe(200);
    expect((await (await h.fetch(row3)).json()).When).toBe('1904-01-01');
    expect(await rawValue(file, 'B4')).toBe('0');
  });
});

describe('.xlsx: empty cells formatted as dates', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('are date cells: an updated one, and one below the data an appended row lands on', async () => {
    const file = path.join(h.dir, 'formatted.xlsx');
    // Due of row 1 is empty but formatted as a date; below the data, B4 is too (a column formatted ahead).
    await runPython(
      `import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Dates'
ws.append(['Name', 'When', 'Due'])
ws.append(['a', 45000, None])
ws.append(['b', 5, None])
ws.cell(2, 2).number_format = 'yyyy-mm-dd'
ws.cell(2, 3).number_format = 'yyyy-mm-dd'
ws.cell(4, 2).number_format = 'yyyy-mm-dd'
wb.save(sys.argv[1])`,
      [file],
    );
    const conn = await h.connect(file);
    const before = await fileHash(file);
    const refused = [
      await h.fetch(rowsPath(conn, 'Dates', '/1'), json('PATCH', { Due: 1e308 })),
      await h.fetch(rowsPath(conn, 'Dates'), json('POST', { Name: 'c', When: 1e308 })),
    ];
    for (const res of refused) expect(res.status).toBe(400);
    expect(await fileHash(file)).toBe(before);
    // A number in range lands on B4 as a date; the next appended row copies that row's date style.
    expect((await h.fetch(rowsPath(conn, 'Dates', '/1'), json('PATCH', { Due: 45000 }))).status).toBe(200);
    expect((await (await h.fetch(rowsPath(conn, 'Dates', '/1'))).json()).Due).toBe('2023-03-15');
    expect((await h.fetch(rowsPath(conn, 'Dates'), json('POST', { Name: 'c', When: 5 }))).status).toBe(201);
    expect((await (await h.fetch(rowsPath(conn, 'Dates', '/3'))).json()).When).toBe('1900-01-05');
    const copied = await h.fetch(rowsPath(conn, 'Dates'), json('POST', { Name: 'd', When: 1e308 }));
    expect(copied.status).toBe(400);
  });
});

describe('.xlsx: a date written earlier in the same batch', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('makes the row appended rows copy a date row: a number they cannot show is still refused', async () => {
    const file = path.join(h.dir, 'late-date.xlsx');
    await runPython(
      `import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Dates'
ws.append(['Name', 'When'])
ws.append(['a', 45000])
ws.cell(2, 2).number_format = 'yyyy-mm-dd'
ws.append(['b', None])
wb.save(sys.argv[1])`,
      [file],
    );
    const conn = await h.connect(file);
    const before = await fileHash(file);
    const { sheets } = await (await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json();
    // Row 2's empty When cell becomes a date (ISO text in a column of dates); the appended row copies its style.
    const res = await h.fetch(
      `/v1/sheets/${encodeURIComponent(sheets[0].sheet_id)}/rows:batchUpdate`,
      json('POST', {
        mutations: [
          { op: 'update', row: 2, values: { When: '2024-03-01' } },
          { op: 'append', values: { Name: 'c', When: 1e308 } },
        ],
      }),
    );
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ code: 'invalid_body', field: 'When', index: 1 });
    expect(await fileHash(file)).toBe(before);
  });
});

describe('.csv files', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('have no date cells: any number is stored as it is', async () => {
    const file = await writeCsv(h.dir, 'dates.csv', 'Name,When\na,2024-03-01\n');
    const conn = await h.connect(file);
    expect((await h.fetch(rowsPath(conn, 'dates', '/1'), json('PATCH', { When: 1e308 }))).status).toBe(200);
    expect((await (await h.fetch(rowsPath(conn, 'dates', '/1'))).json()).When).toBe(1e308);
    // A date typed with input=user_entered is ISO text, whatever its day (no serial, no bare time).
    const typed = await h.fetch(
      rowsPath(conn, 'dates', '?input=user_entered'),
      json('POST', [
        { Name: 'b', When: '12/31/1899' },
        { Name: 'c', When: '2/11/1900' },
      ]),
    );
    expect(typed.status).toBe(201);
    expect(await readFile(file, 'utf8')).toBe('Name,When\na,1e+308\nb,1899-12-31\nc,1900-02-11\n');
  });
});
