/**
 * Writes by filter: `PATCH` and `DELETE /v1/sheets/{sheetId}/rows?where=...`, on a workbook written by openpyxl
 * and on the same spreadsheet on Google (the Sheets fake), checked by reading the spreadsheet back past the
 * service: every matching row written, at most 500 unless `limit` takes the first ones, `remaining` counted,
 * `dry_run` writing nothing, `where` required.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectedBook, type Harness, KINDS, startHarness } from '../helpers/harness.ts';
import { readTableWithOpenpyxl } from '../helpers/openpyxl.ts';
import { connectTable, type TableBook } from '../helpers/table-book.ts';

const ROWS = 520;
/** Row i (1-based): a status that cycles, and a number. */
const rowsOf = () =>
  Array.from({ length: ROWS }, (_, i) => [
    `T-${i + 1}`,
    i % 4 === 0 ? 'open' : 'done',
    i + 1,
    i < 510 ? 'bulk' : 'tail',
  ]);

describe.each(KINDS)('writes by filter on %s', (kind) => {
  let h: Harness;
  let book: ConnectedBook;
  let rows: string;
  let table: TableBook;

  beforeAll(async () => {
    h = await startHarness({ kind });
    table = await connectTable(h, 'Tasks', ['Id', 'Status', 'N', 'Batch'], rowsOf());
    book = table.book;
    rows = `${table.sheet}/rows`;
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await table?.remove();
  });

  const send = (method: string, where: string, query = '', body?: unknown) =>
    h.fetch(`${rows}?where=${encodeURIComponent(where)}${query}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
  const all = async () =>
    (await (await h.fetch(`/api/spreadsheets/${book.connection.userKey}/Tasks?limit=1000`)).json()) as {
      Id: string;
      Status: string;
      N: number;
    }[];

  it('updates every row where keeps, and says which', async () => {
    const res = await send('PATCH', "Status = 'open' and N > 500", '', { Status: 'late' });
    const body = await res.json();
    expect(body).toEqual({ updated: 5, rows: [505, 509, 513, 517, 501].sort((a, b) => a - b), remaining: 0 });
    const stored = await book.cell('Tasks', 'B502');
    expect(stored).toBe('late');
    const statuses = (await all()).map((r) => r.Status);
    expect(statuses.filter((s) => s === 'late')).toHaveLength(5);
  });

  it('refuses more than 500 rows unless limit takes the first ones, and then counts what remains', async () => {
    const before = await all();
    const refused = await send('DELETE', "Batch = 'bulk'");
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toMatchObject({ code: 'too_many_rows', count: 510 });
    expect(await all()).toEqual(before);
    const dry = await (await send('DELETE', "Batch = 'bulk'", '&limit=3&dry_run=true')).json();
    expect(dry).toEqual({ deleted: 3, rows: [1, 2, 3], remaining: 507, dry_run: true });
    expect(await all()).toEqual(before);
    const done = await (await send('DELETE', "Batch = 'bulk'", '&limit=3')).json();
    expect(done).toEqual({ deleted: 3, rows: [1, 2, 3], remaining: 507 });
    const after = await all();
    expect(after).toHaveLength(ROWS - 3);
    expect(after[0]!.Id).toBe('T-4');
    expect(await book.cell('Tasks', 'A2')).toBe('T-4');
    if (book.file) {
      const read = await readTableWithOpenpyxl(book.file, 'Tasks');
      expect(read).toHaveLength(ROWS - 3);
      expect(read.filter((r) => r[1] === 'late')).toHaveLength(5);
    }
  });

  it('refuses If-Match, a precondition on one row, writing nothing', async () => {
    const before = await book.fingerprint();
    const res = await h.fetch(`${rows}?where=${encodeURIComponent('N > 0')}`, {
      method: 'DELETE',
      headers: { 'if-match': '*' },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'invalid_parameter', parameter: 'If-Match' });
    expect(await book.fingerprint()).toBe(before);
  });

  it('needs where, refuses an unknown column, and answers a filter that keeps nothing without writing', async () => {
    const missing = await h.fetch(rows, { method: 'DELETE' });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error).toMatchObject({ code: 'invalid_parameter', parameter: 'where' });
    const unknown = await send('DELETE', 'Nope = 1');
    expect((await unknown.json()).error).toMatchObject({ code: 'unknown_field', field: 'Nope' });
    const fingerprint = await book.fingerprint();
    expect(await (await send('DELETE', "Status = 'nobody'")).json()).toEqual({
      deleted: 0,
      rows: [],
      remaining: 0,
    });
    expect(await book.fingerprint()).toBe(fingerprint);
  });
});
