/**
 * Writes by key: `POST /v1/sheets/{sheetId}/rows:upsert`, on a workbook written by openpyxl and on the same
 * spreadsheet on Google (the Sheets fake). Rows whose key matches update the fields they name, others are
 * appended, all in one write, checked by reading the spreadsheet back past the service (openpyxl for the file,
 * the Sheets API for Google); an ambiguous key is 409 and writes nothing, a repeated input key 400, `dry_run`
 * writes nothing, and an `Idempotency-Key` repeat writes once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectedBook, type Harness, KINDS, startHarness } from '../helpers/harness.ts';
import { readTableWithOpenpyxl } from '../helpers/openpyxl.ts';
import { connectTable, type TableBook } from '../helpers/table-book.ts';

const HEADER = ['Order ID', 'Customer', 'Total', 'Region'];
const ROWS = [
  ['ORD-1', 'Ada', 100, 'north'],
  ['ORD-2', 'Bob', 250.5, 'south'],
  ['ORD-3', 'Cy', 75, 'north'],
  ['ORD-3', 'Cy again', 80, 'east'],
  [5, 'Five', 5, 'west'],
];

describe.each(KINDS)('upsert on %s', (kind) => {
  let h: Harness;
  let book: ConnectedBook;
  let rows: string;
  let table: TableBook;

  beforeAll(async () => {
    h = await startHarness({ kind });
    table = await connectTable(h, 'Orders', HEADER, ROWS);
    book = table.book;
    rows = `${table.sheet}/rows`;
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await table?.remove();
  });

  const upsert = (body: unknown, query = '', headers: Record<string, string> = {}) =>
    h.fetch(`${rows}:upsert${query}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    });

  /** The tab as stored, read past the service: the file by openpyxl, Google by the Sheets API. */
  const stored = async (): Promise<unknown[][]> => {
    if (book.file) return readTableWithOpenpyxl(book.file, 'Orders');
    const out: unknown[][] = [];
    for (let r = 2; r <= 12; r++) {
      const row = [];
      for (const c of ['A', 'B', 'C', 'D']) row.push((await book.cell('Orders', `${c}${r}`)) ?? null);
      if (row.every((v) => v === null)) break;
      out.push(row);
    }
    return out;
  };

  it('refuses an ambiguous key with 409 naming it, and a repeated input key with 400, writing nothing', async () => {
    const before = await stored();
    const ambiguous = await upsert({
      key: ['Order ID'],
      rows: [
        { 'Order ID': 'ORD-1', Total: 1 },
        { 'Order ID': 'ORD-3', Total: 2 },
      ],
    });
    expect(ambiguous.status).toBe(409);
    expect((await ambiguous.json()).error).toMatchObject({
      code: 'ambiguous_key',
      index: 1,
      key: { 'Order ID': 'ORD-3' },
      rows: [3, 4],
    });
    const repeated = await upsert({ key: ['Order ID'], rows: [{ 'Order ID': 'X' }, { 'Order ID': 'X' }] });
    expect(repeated.status).toBe(400);
    const missing = await upsert({ key: ['Order ID'], rows: [{ Customer: 'no key' }] });
    expect(missing.status).toBe(400);
    const unknown = await upsert({ key: ['Nope'], rows: [{ Nope: 1 }] });
    expect((await unknown.json()).error).toMatchObject({ code: 'unknown_field', field: 'Nope' });
    expect(await stored()).toEqual(before);
  });

  it('refuses If-Match (a precondition on one row) on an upsert and on a batch, writing nothing', async () => {
    const before = await book.fingerprint();
    const refused = await upsert({ key: ['Order ID'], rows: [{ 'Order ID': 'ORD-9', Total: 1 }] }, '', {
      'if-match': '*',
    });
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toMatchObject({ code: 'invalid_parameter', parameter: 'If-Match' });
    const batch = await h.fetch(`${rows}:batchUpdate`, {
      method: 'POST',
      body: JSON.stringify({ mutations: [{ op: 'delete', row: 1 }] }),
      headers: { 'content-type': 'application/json', 'if-match': '"x"' },
    });
    expect(batch.status).toBe(400);
    expect(await book.fingerprint()).toBe(before);
  });

  it('answers a dry run with what it would do, and writes nothing', async () => {
    const before = await stored();
    const res = await upsert(
      { key: ['Order ID'], rows: [{ 'Order ID': 'ORD-2', Total: 9 }, { 'Order ID': 'NEW' }] },
      '?dry_run=true',
    );
    expect(await res.json()).toEqual({
      updated: 1,
      appended: 1,
      rows: [
        { row: 2, action: 'updated' },
        { row: 6, action: 'appended' },
      ],
      dry_run: true,
    });
    expect(await stored()).toEqual(before);
  });

  it('updates the rows its key matches and appends the others, in one write, by typed key', async () => {
    const body = {
      key: ['Order ID'],
      rows: [
        { 'Order ID': 'ORD-2', Total: 300 },
        { 'Order ID': 'ORD-9', Customer: 'Dee', Total: 10, Region: 'east' },
        // 5 the number matches the row whose key is the number 5; '5' the text would be a new row.
        { 'Order ID': 5, Region: 'north' },
      ],
    };
    const res = await upsert(body, '', { 'idempotency-key': `upsert-${kind}` });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      updated: 2,
      appended: 1,
      rows: [
        { row: 2, action: 'updated' },
        { row: 6, action: 'appended' },
        { row: 5, action: 'updated' },
      ],
    });
    const expected = [
      ['ORD-1', 'Ada', 100, 'north'],
      ['ORD-2', 'Bob', 300, 'south'],
      ['ORD-3', 'Cy', 75, 'north'],
      ['ORD-3', 'Cy again', 80, 'east'],
      [5, 'Five', 5, 'north'],
      ['ORD-9', 'Dee', 10, 'east'],
    ];
    expect(await stored()).toEqual(expected);
    // The same request again with its Idempotency-Key is answered as the first, and writes nothing more.
    const again = await upsert(body, '', { 'idempotency-key': `upsert-${kind}` });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await stored()).toEqual(expected);
    // A composite key: Customer and Region together.
    const composite = await upsert(
      { key: ['Customer', 'Region'], rows: [{ Customer: 'Cy', Region: 'north', Total: 76 }] },
      '',
      {},
    );
    expect(await composite.json()).toMatchObject({
      updated: 1,
      appended: 0,
      rows: [{ row: 3, action: 'updated' }],
    });
    expect((await stored())[2]).toEqual(['ORD-3', 'Cy', 76, 'north']);
  });

  it('takes upserts in a batch, resolved against the tab before the batch as its other mutations are', async () => {
    const before = await stored();
    const batch = (mutations: unknown[]) =>
      h.fetch(`${rows}:batchUpdate`, {
        method: 'POST',
        body: JSON.stringify({ mutations }),
        headers: { 'content-type': 'application/json' },
      });
    const ambiguous = await batch([
      { op: 'update', row: 1, values: { Total: 1 } },
      { op: 'upsert', key: ['Order ID'], values: { 'Order ID': 'ORD-3', Total: 2 } },
    ]);
    expect(ambiguous.status).toBe(409);
    expect((await ambiguous.json()).error).toMatchObject({ code: 'ambiguous_key', index: 1 });
    expect(await stored()).toEqual(before);
    const res = await batch([
      { op: 'upsert', key: ['Order ID'], values: { 'Order ID': 'ORD-9', Total: 11 } },
      { op: 'upsert', key: ['Order ID'], values: { 'Order ID': 'ORD-B', Customer: 'Bea' } },
      { op: 'delete', row: 1 },
    ]);
    expect(await res.json()).toEqual({ appended: 1, updated: 1, deleted: 1 });
    const after = await stored();
    expect(after).toHaveLength(before.length);
    expect(after[0]).toEqual(before[1]);
    expect(after.find((r) => r[0] === 'ORD-9')).toEqual(['ORD-9', 'Dee', 11, 'east']);
    expect(after.at(-1)).toEqual(['ORD-B', 'Bea', null, null]);
  });

  it('is also reachable as rows/upsert, and other methods there are 405', async () => {
    const res = await h.fetch(`${rows}/upsert`, {
      method: 'POST',
      body: JSON.stringify({ key: ['Order ID'], rows: [{ 'Order ID': 'ORD-2', Total: 101 }] }),
      headers: { 'content-type': 'application/json' },
    });
    expect(await res.json()).toMatchObject({ updated: 1, rows: [{ row: 1, action: 'updated' }] });
    expect((await h.fetch(`${rows}/upsert`)).status).toBe(405);
  });
});
