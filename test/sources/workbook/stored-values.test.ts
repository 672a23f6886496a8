/**
 * A value the service acknowledges is the value stored: after a reload of the file by a fresh server it is
 * identical, or the write was refused with 400 naming the field and nothing changed. Checked through real
 * HTTP on .xlsx and .csv files, with openpyxl and an XML parser reading the written file independently.
 */
import { readFile } from 'node:fs/promises';
import { XMLValidator } from 'fast-xml-parser';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { fileHash, writeCsv, writePeopleWorkbook } from '../../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

/** Strings XML cannot carry as they are, or that a parser would rewrite, and look-alikes of the escapes. */
const ODD_STRINGS = [
  'a\uffffb',
  'a\ufffeb',
  '\u0001\u0002\u001f controls',
  'nul\u0000inside',
  'a\rb',
  'a\r\nb',
  'trailing CR\r',
  'tab\tinside',
  '\ttab first',
  ' lead and trail ',
  '\nnewline first',
  'literal _x0041_ and _x005F_',
  '_x000D_',
  'emoji 😀 and é',
  'DEL \u007f and NEL \u0085',
  '=1+1',
  "'=quoted",
];

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** The tab as a brand-new server reads it from the file: nothing cached from the writes. */
async function reloaded(file: string, sheet: string): Promise<Record<string, unknown>[]> {
  const fresh = await startHarness();
  try {
    const conn = await fresh.connect(file);
    const res = await fresh.fetch(rowsPath(conn, sheet, '?limit=1000'));
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>[];
  } finally {
    await fresh.close();
  }
}

const send = (conn: ConnectionRecord, sheet: string, method: string, rest: string, body: unknown) =>
  h.fetch(rowsPath(conn, sheet, rest), {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function expectWellFormedXlsx(file: string): Promise<void> {
  const zip = await JSZip.loadAsync(await readFile(file));
  for (const name of Object.keys(zip.files)) {
    if (!/\.(xml|rels)$/.test(name)) continue;
    const text = await zip.file(name)!.async('string');
    expect(XMLValidator.validate(text), name).toBe(true);
  }
  // openpyxl loads the whole workbook (it refuses a file whose XML is not well-formed).
  const out = await runPython(
    'import openpyxl, sys\nwb = openpyxl.load_workbook(sys.argv[1])\nprint(wb.active.max_row)',
    [file],
  );
  expect(Number(out.trim())).toBeGreaterThan(1);
}

describe('.xlsx: odd characters round-trip exactly', () => {
  it('appends and updates every odd string; a fresh server reads the same values back', async () => {
    const file = await writePeopleWorkbook(h.dir, 'odd.xlsx');
    const conn = await h.connect(file);
    const appended = await send(
      conn,
      'People',
      'POST',
      '',
      ODD_STRINGS.map((s) => ({ Name: s, Code: s })),
    );
    expect(appended.status).toBe(201);
    const put = await send(conn, 'People', 'PUT', '/1', { Name: 'a\uffffb', Code: 'x\r\ny' });
    expect(put.status).toBe(200);

    const rows = await reloaded(file, 'People');
    expect(rows[0]).toMatchObject({ Name: 'a\uffffb', Code: 'x\r\ny' });
    const tail = rows.slice(-ODD_STRINGS.length);
    expect(tail.map((r) => r.Name)).toEqual(ODD_STRINGS);
    expect(tail.map((r) => r.Code)).toEqual(ODD_STRINGS);
    await expectWellFormedXlsx(file);
  });

  it('a new header written from odd field names reads back exactly', async () => {
    const { default: ExcelJS } = await import('exceljs');
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Empty');
    const file = `${h.dir}/empty-odd.xlsx`;
    await wb.xlsx.writeFile(file);
    const conn = await h.connect(file);
    const res = await send(conn, 'Empty', 'POST', '', { 'a\rb': 1, x_x0041_: 2, 'c\uffff': 3 });
    expect(res.status).toBe(201);
    expect(await reloaded(file, 'Empty')).toEqual([{ 'a\rb': 1, x_x0041_: 2, 'c\uffff': 3 }]);
    await expectWellFormedXlsx(file);
  });
});

describe('.csv: odd characters round-trip exactly', () => {
  it('appends every odd string and reads the same values back from a fresh server', async () => {
    const file = await writeCsv(h.dir, 'odd.csv', 'Name,Code\nAnn,1\n');
    const conn = await h.connect(file);
    const res = await send(
      conn,
      'odd',
      'POST',
      '',
      ODD_STRINGS.map((s) => ({ Name: s, Code: s })),
    );
    expect(res.status).toBe(201);
    const rows = await reloaded(file, 'odd');
    expect(rows.slice(1).map((r) => r.Name)).toEqual(ODD_STRINGS);
    expect(rows.slice(1).map((r) => r.Code)).toEqual(ODD_STRINGS);
  });
});

describe('.csv: formula injection (CONTRACT 2)', () => {
  const ATTACKS = ['=HYPERLINK("http://x.example","click")', '+1+1', '-1+1', '@SUM(1)', '\t=1', '\r=1'];

  it('stores formula-like text behind a leading quote and returns it exactly through the API', async () => {
    const file = await writeCsv(h.dir, 'inject.csv', 'Name,Note\n');
    const conn = await h.connect(file);
    const values = [...ATTACKS, "'=already quoted", -5, '+5', 'plain'];
    const res = await send(
      conn,
      'inject',
      'POST',
      '',
      values.map((v) => ({ Name: v, Note: 'n' })),
    );
    expect(res.status).toBe(201);

    // What a spreadsheet opening the file sees: no field starts with a formula trigger.
    const text = await readFile(file, 'utf8');
    const fields = (await runPython(
      'import csv, json, sys\nprint(json.dumps([r[0] for r in csv.reader(open(sys.argv[1], newline=""))]))',
      [file],
    )) as string;
    const names = JSON.parse(fields) as string[];
    for (const name of names.slice(1, 1 + ATTACKS.length)) expect(name.startsWith("'")).toBe(true);
    expect(names).toContain("''=already quoted");
    expect(text).toContain('\n-5,n');
    expect(text).toContain('\n+5,n');

    const rows = await reloaded(file, 'inject');
    expect(rows.map((r) => r.Name)).toEqual([...ATTACKS, "'=already quoted", -5, '+5', 'plain']);
  });

  it('a formulas key still cannot create a formula in a .csv file', async () => {
    const file = await writeCsv(h.dir, 'inject-formulas.csv', 'Name\n');
    const conn = await h.connect(file);
    const key = await h.createKey({ name: 'formulas', scope: 'read_write', allowFormulas: true });
    const res = await h.fetch(rowsPath(conn, 'inject-formulas'), {
      method: 'POST',
      auth: key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: '=1+1' }),
    });
    expect(res.status).toBe(201);
    expect(await readFile(file, 'utf8')).toBe("Name\n'=1+1\n");
  });
});

describe('.csv: text that would read back as a number or a boolean', () => {
  it('is refused naming the field, and stored as the sheet reads it with input=user_entered', async () => {
    const file = await writeCsv(h.dir, 'typed.csv', 'Name,Note\nAnn,x\n');
    const conn = await h.connect(file);
    const before = await fileHash(file);
    for (const text of ['true', 'FALSE', '-1', '1e3', '-0', '42']) {
      const res = await send(conn, 'typed', 'POST', '', [
        { Name: 'ok', Note: 'n' },
        { Name: 'ok', Note: text },
      ]);
      expect(res.status, text).toBe(400);
      const error = (await res.json()).error;
      expect(error, text).toMatchObject({ code: 'invalid_body', field: 'Note', index: 1 });
      expect(error.message).toMatch(/input=user_entered/);
      expect((await send(conn, 'typed', 'PUT', '/1', { Note: text })).status, text).toBe(400);
    }
    expect(await fileHash(file)).toBe(before);

    // Text that stays text is kept as it is; typed values and user_entered input are stored as such.
    expect((await send(conn, 'typed', 'POST', '', { Name: '007', Note: ' 42' })).status).toBe(201);
    expect((await send(conn, 'typed', 'POST', '', { Name: true, Note: -1 })).status).toBe(201);
    expect(
      (await send(conn, 'typed', 'POST', '?input=user_entered', { Name: 'true', Note: '1e3' })).status,
    ).toBe(201);
    const rows = await reloaded(file, 'typed');
    expect(rows.slice(1)).toEqual([
      { Name: '007', Note: ' 42' },
      { Name: true, Note: -1 },
      { Name: true, Note: 1000 },
    ]);
  });
});

describe('values a source cannot store are refused, naming the field, with nothing written', () => {
  for (const kind of ['xlsx', 'csv'] as const) {
    it(`${kind}: a lone surrogate, an over-long text and too many columns`, async () => {
      const file =
        kind === 'xlsx'
          ? await writePeopleWorkbook(h.dir, 'refuse.xlsx')
          : await writeCsv(h.dir, 'refuse.csv', 'Name,Code\nAnn,1\n');
      const sheet = kind === 'xlsx' ? 'People' : 'refuse';
      const conn = await h.connect(file);
      const before = await fileHash(file);

      const lone = await send(conn, sheet, 'PUT', '/1', { Code: 'a\ud800b' });
      expect(lone.status).toBe(400);
      const loneBody = await lone.json();
      expect(loneBody.error).toMatchObject({ code: 'invalid_body', field: 'Code' });
      expect(loneBody.error.index).toBeUndefined();

      const long = await send(conn, sheet, 'POST', '', { Name: 'x'.repeat(32_768) });
      expect(long.status).toBe(400);
      expect((await long.json()).error).toMatchObject({ code: 'invalid_body', field: 'Name' });
      // Exactly the limit is fine (checked on a batch so the file is written once).
      const batch = await h.fetch(`/v1/sheets/${conn.spreadsheetId}~1/rows:batchUpdate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          mutations: [
            { op: 'update', row: 1, values: { Name: 'ok' } },
            { op: 'append', values: { Name: 'y'.repeat(32_768) } },
          ],
        }),
      });
      expect(batch.status).toBe(400);
      expect((await batch.json()).error).toMatchObject({ code: 'invalid_body', field: 'Name', index: 1 });
      expect(await fileHash(file)).toBe(before);

      const exact = await send(conn, sheet, 'POST', '', { Name: 'z'.repeat(32_767) });
      expect(exact.status).toBe(201);
      const rows = await reloaded(file, sheet);
      expect(rows.at(-1)?.Name).toBe('z'.repeat(32_767));
    });
  }

  it('a 20,000-field row on an empty tab is 400, not 500', async () => {
    const file = await writeCsv(h.dir, 'wide.csv', '');
    const conn = await h.connect(file);
    const row = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`c${i}`, i]));
    const res = await send(conn, 'wide', 'POST', '', row);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'invalid_body', limit: 16_384 });
    expect(await readFile(file, 'utf8')).toBe('');
  });

  for (const [kind, make] of [
    ['.csv', () => writeCsv(h.dir, 'wide-rows.csv', '')],
    [
      '.xlsx',
      async () => {
        const { default: ExcelJS } = await import('exceljs');
        const wb = new ExcelJS.Workbook();
        wb.addWorksheet('wide-rows');
        const file = `${h.dir}/wide-rows.xlsx`;
        await wb.xlsx.writeFile(file);
        return file;
      },
    ],
  ] as const) {
    it(`${kind}: rows that fit alone but name over 16,384 fields together are 400, and the file is unchanged`, async () => {
      const file = await make();
      const conn = await h.connect(file);
      const before = await fileHash(file);
      const half = (from: number) =>
        Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`c${from + i}`, i]));
      const res = await send(conn, 'wide-rows', 'POST', '', [half(0), half(10_000)]);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: 'invalid_body', limit: 16_384, index: 1 });
      expect(await fileHash(file)).toBe(before);
    });
  }
});

describe('.xlsx: formula text the file can hold exactly, or a refusal', () => {
  const sendFormula = (conn: ConnectionRecord, key: string, body: unknown) =>
    h.fetch(rowsPath(conn, 'People'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });

  it('refuses a formula holding a character XML cannot carry or a reload would change, naming the field', async () => {
    const file = await writePeopleWorkbook(h.dir, 'formula-odd.xlsx');
    const conn = await h.connect(file);
    const key = await h.createKey({ name: 'formulas', scope: 'read_write', allowFormulas: true });
    const before = await fileHash(file);
    for (const formula of ['="a"&"\u0001"', '="\uffff"', '=LEN("a\rb")', '="\u0000"']) {
      const res = await sendFormula(conn, key, { Name: 'x', Code: formula });
      expect(res.status, JSON.stringify(formula)).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: 'invalid_body', field: 'Code' });
    }
    expect(await fileHash(file)).toBe(before);
  });

  it('keeps other formula text exactly through a reload; the file stays well-formed for XML and openpyxl', async () => {
    const file = await writePeopleWorkbook(h.dir, 'formula-kept.xlsx');
    const conn = await h.connect(file);
    const key = await h.createKey({ name: 'formulas', scope: 'read_write', allowFormulas: true });
    const formulas = ['="tab\there"', '="line\nbreak"', '="emoji 😀 & <é>"', '=LEN(""quoted"")'];
    const res = await sendFormula(
      conn,
      key,
      formulas.map((f) => ({ Name: 'f', Code: f })),
    );
    expect(res.status).toBe(201);
    const fresh = await startHarness();
    try {
      const again = await fresh.connect(file);
      const read = await fresh.fetch(rowsPath(again, 'People', '?values=formula&limit=1000'));
      const rows = (await read.json()) as Record<string, unknown>[];
      expect(rows.slice(-formulas.length).map((r) => r.Code)).toEqual(formulas);
    } finally {
      await fresh.close();
    }
    await expectWellFormedXlsx(file);
  });
});
