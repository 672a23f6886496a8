/**
 * `POST /v1/sheets/{sheetId}/rows:batchUpdate` over real HTTP, once per kind (real .xlsx files, and Google
 * spreadsheets on the Sheets fake seeded from the same files): the whole batch is validated before anything is
 * written, applied with one file replace (one Google batchUpdate), and row numbers refer to the tab as it was
 * before the batch. openpyxl is the independent reader of what was written to a file.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import {
  type ConnectedBook,
  forEachKind,
  type Harness,
  type KindName,
  type StoreName,
  startHarness,
} from '../helpers/harness.ts';
import { readWithOpenpyxl } from '../helpers/openpyxl.ts';
import { writeStyledWorkbook } from '../sources/workbook/helpers.ts';

let h: Harness;
let n = 0;

/** A harness of `kind` for the tests of the describe block it is called in. */
function harnessOf(kind: KindName, store: StoreName = 'sqlite'): void {
  beforeAll(async () => {
    h = await startHarness({ kind, store });
  });
  afterAll(() => h.close());
}

interface Fixture {
  conn: ConnectionRecord;
  book: ConnectedBook;
  /** The public sheet_id of the first tab, as GET /v1/spreadsheets/{id} lists it. */
  sheetId: string;
}

async function connectFile(file: string): Promise<Fixture> {
  const book = await h.connectBook(file);
  const conn = book.connection;
  const { sheets } = await (await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json();
  return { conn, book, sheetId: sheets[0].sheet_id as string };
}

/** People tab (6 rows: Ann, bob, Cid Jr., an empty row, item10, item2), a fresh spreadsheet per test. */
const freshPeople = async () => await connectFile(await writePeopleWorkbook(h.dir, `people-${++n}.xlsx`));

/** Orders tab: styled header, currency/date formats, a formula column, a merged note, a Summary tab. */
const freshStyled = async (rows = 5) =>
  await connectFile(await writeStyledWorkbook(path.join(h.dir, `styled-${++n}.xlsx`), rows));

const batchPath = (sheetId: string, form: 'colon' | 'slash' = 'colon') =>
  `/v1/sheets/${encodeURIComponent(sheetId)}/rows${form === 'colon' ? ':' : '/'}batchUpdate`;

function batch(
  sheetId: string,
  body: unknown,
  init: { form?: 'colon' | 'slash'; headers?: Record<string, string>; auth?: string; query?: string } = {},
) {
  return h.fetch(batchPath(sheetId, init.form) + (init.query ?? ''), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(init.auth === undefined ? {} : { auth: init.auth }),
  });
}

async function rowsOf(sheetId: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await (
      await h.fetch(`/v1/sheets/${encodeURIComponent(sheetId)}/rows?limit=500&offset=${offset}`)
    ).json();
    all.push(...page.data);
    if (offset + 500 >= page.meta.total) return all;
  }
}

forEachKind((kind, store) => {
  harnessOf(kind, store);

  describe('routes', () => {
    it('answers on both URL forms, and leaves GET /v1/sheets/{sheetId}/rows alone', async () => {
      const { sheetId } = await freshPeople();
      expect(sheetId).toContain('~');
      const colon = await batch(sheetId, { mutations: [{ op: 'update', row: 1, values: { Age: 32 } }] });
      expect(colon.status).toBe(200);
      expect(await colon.json()).toEqual({ appended: 0, updated: 1, deleted: 0 });
      const slash = await batch(
        sheetId,
        { mutations: [{ op: 'update', row: 1, values: { Age: 33 } }] },
        {
          form: 'slash',
        },
      );
      expect(slash.status).toBe(200);
      expect(await slash.json()).toEqual({ appended: 0, updated: 1, deleted: 0 });

      // The ~ is sent as it is (not percent-encoded) too.
      const raw = await h.fetch(`/v1/sheets/${sheetId}/rows:batchUpdate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mutations: [{ op: 'update', row: 1, values: { Age: 34 } }] }),
      });
      expect(raw.status).toBe(200);

      const list = await h.fetch(`/v1/sheets/${sheetId}/rows?limit=1&fields=Name,Age`);
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual({
        data: [{ Name: 'Ann', Age: 34 }],
        meta: { total: 6, limit: 1, offset: 0 },
      });
    });

    it('does not swallow neighbouring paths: wrong methods get 405 with Allow', async () => {
      const { sheetId } = await freshPeople();
      const getBatch = await h.fetch(batchPath(sheetId));
      expect(getBatch.status).toBe(405);
      expect(getBatch.headers.get('allow')).toBe('POST');
      const getSlash = await h.fetch(batchPath(sheetId, 'slash'));
      expect(getSlash.status).toBe(405);
      expect(getSlash.headers.get('allow')).toBe('POST');
      const postRows = await h.fetch(`/v1/sheets/${sheetId}/rows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mutations: [{ op: 'delete', row: 1 }] }),
      });
      // POST to the rows is the append: a batch's body there is refused, and nothing is deleted.
      expect(postRows.status).toBe(400);
      expect((await postRows.json()).error).toMatchObject({ code: 'invalid_body', field: 'mutations' });
      expect((await (await h.fetch(`/v1/sheets/${sheetId}/rows?limit=1`)).json()).meta.total).toBe(6);
      const putRows = await h.fetch(`/v1/sheets/${sheetId}/rows`, { method: 'PUT' });
      expect(putRows.status).toBe(405);
      expect(putRows.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH, POST');
      const otherVerb = await h.fetch(`/v1/sheets/${sheetId}/rows:batchDelete`, { method: 'POST' });
      expect(otherVerb.status).toBe(404);
      expect((await otherVerb.json()).error.code).toBe('not_found');
      // documented: the colon must be sent as it is
      const encoded = await h.fetch(`/v1/sheets/${sheetId}/rows%3AbatchUpdate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mutations: [{ op: 'delete', row: 1 }] }),
      });
      expect(encoded.status).toBe(404);
      expect((await encoded.json()).error.code).toBe('not_found');
    });
  });

  describe('applying a batch', () => {
    it('numbers rows as they were before the batch: delete 2, update 5, append 2', async () => {
      const { sheetId, book } = await freshPeople();
      const res = await batch(sheetId, {
        mutations: [
          { op: 'delete', row: 2 },
          { op: 'update', row: 5, values: { Name: 'ITEM10', Age: 41 } },
          { op: 'append', values: { Name: 'new1', Age: 1 } },
          { op: 'append', values: { Name: 'new2', Active: true, Code: '0099' } },
        ],
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ appended: 2, updated: 1, deleted: 1 });

      const rows = await rowsOf(sheetId);
      expect(rows.map((r) => r.Name)).toEqual(['Ann', 'Cid, Jr.', null, 'ITEM10', 'item2', 'new1', 'new2']);
      // row 5 before the batch (item10) got the update, other fields kept
      expect(rows[3]).toEqual({
        Name: 'ITEM10',
        Age: 41,
        Joined: '2022-01-05',
        Active: false,
        Balance: 0,
        Code: 'item2',
        G: null,
        Name_2: 'back\\slash',
      });
      expect(rows[5]).toEqual({
        Name: 'new1',
        Age: 1,
        Joined: null,
        Active: null,
        Balance: null,
        Code: null,
        G: null,
        Name_2: null,
      });
      expect(rows[6]).toMatchObject({ Name: 'new2', Age: null, Active: true, Code: '0099' });

      // What the spreadsheet holds, read past the service: exactly these 7 data rows under the header.
      const column = async (letter: string) => {
        const cells = [];
        for (const r of [2, 3, 4, 5, 6, 7, 8, 9])
          cells.push((await book.cell('People', `${letter}${r}`)) ?? null);
        return cells;
      };
      expect(await column('A')).toEqual(['Ann', 'Cid, Jr.', null, 'ITEM10', 'item2', 'new1', 'new2', null]);
      expect(await column('B')).toEqual([31, null, null, 41, 40, 1, null, null]);
      expect(await column('F')).toEqual(['007', 'A:1', null, 'item2', 'x', null, '0099', null]);
      // What Excel would see: a file has a used range of its own (the header and these 7 rows); a Google grid has none.
      if (book.file) expect((await readWithOpenpyxl(book.file)).sheets[0]!.maxRow).toBe(8);
    });

    it('merges several updates of one row in order, and lets a row be updated then deleted', async () => {
      const { sheetId } = await freshPeople();
      const res = await batch(sheetId, {
        mutations: [
          { op: 'update', row: 1, values: { Age: 1, Code: 'a' } },
          { op: 'update', row: 1, values: { Age: 2 } },
          { op: 'update', row: 3, values: { Name: 'gone anyway' } },
          { op: 'delete', row: 3 },
        ],
      });
      expect(await res.json()).toEqual({ appended: 0, updated: 3, deleted: 1 });
      const rows = await rowsOf(sheetId);
      expect(rows[0]).toMatchObject({ Name: 'Ann', Age: 2, Code: 'a' });
      expect(rows.map((r) => r.Name)).toEqual(['Ann', 'bob', null, 'item10', 'item2']);
    });

    it('takes 500 mutations in one request', async () => {
      const { sheetId } = await freshPeople();
      const mutations = Array.from({ length: 500 }, (_, i) =>
        i < 6
          ? { op: 'update', row: i + 1, values: { Age: 100 + i } }
          : { op: 'append', values: { Name: `a${i}` } },
      );
      const res = await batch(sheetId, { mutations });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ appended: 494, updated: 6, deleted: 0 });
      const rows = await rowsOf(sheetId);
      expect(rows).toHaveLength(500);
      expect(rows.slice(0, 6).map((r) => r.Age)).toEqual([100, 101, 102, 103, 104, 105]);
      expect(rows[6]!.Name).toBe('a6');
      expect(rows[499]!.Name).toBe('a499');
    });

    it('parses strings as typed input with ?input=user_entered', async () => {
      const { sheetId } = await freshPeople();
      const res = await batch(
        sheetId,
        { mutations: [{ op: 'append', values: { Name: 'typed', Age: '1,234.5', Active: 'TRUE' } }] },
        { query: '?input=user_entered' },
      );
      expect(res.status).toBe(200);
      expect((await rowsOf(sheetId))[6]).toMatchObject({ Name: 'typed', Age: 1234.5, Active: true });
      const bad = await batch(sheetId, { mutations: [{ op: 'delete', row: 1 }] }, { query: '?input=typed' });
      expect(bad.status).toBe(400);
      expect((await bad.json()).error).toMatchObject({ code: 'invalid_parameter', parameter: 'input' });
    });
  });

  describe('all or nothing', () => {
    /** 299 valid mutations of every kind against a 300-row tab, then `last`. */
    function mutationsEndingWith(last: unknown): unknown[] {
      const valid = Array.from({ length: 299 }, (_, i) => {
        if (i % 3 === 0) return { op: 'update', row: i + 1, values: { Note: `n${i}` } };
        if (i % 3 === 1) return { op: 'append', values: { Order: `N-${i}`, Qty: i } };
        return { op: 'delete', row: i + 1 };
      });
      return [...valid, last];
    }

    it('refuses a 300-mutation batch whose last mutation names an unknown field; the spreadsheet is unchanged', async () => {
      const { sheetId, book } = await freshStyled(300);
      const before = await book.fingerprint();
      const rowsBefore = await rowsOf(sheetId);
      expect(rowsBefore).toHaveLength(300);
      const res = await batch(sheetId, {
        mutations: mutationsEndingWith({ op: 'update', row: 300, values: { Qty: 1, Nope: 1 } }),
      });
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error).toMatchObject({ code: 'unknown_field', index: 299, field: 'Nope' });
      expect(error.message).toMatch(/^mutations\[299\]: /);
      expect(await book.fingerprint()).toBe(before);
      expect(await rowsOf(sheetId)).toEqual(rowsBefore);
    });

    it('refuses a 300-mutation batch whose last mutation is beyond the last row: 400 with index and row', async () => {
      const { sheetId, book } = await freshStyled(300);
      const before = await book.fingerprint();
      const res = await batch(sheetId, { mutations: mutationsEndingWith({ op: 'delete', row: 9999 }) });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({
        code: 'invalid_body',
        index: 299,
        row: 9999,
        row_count: 300,
        message: 'mutations[299]: row 9999 does not exist (the tab has 300 rows).',
      });
      expect(await book.fingerprint()).toBe(before);
      const update = await batch(sheetId, {
        mutations: mutationsEndingWith({ op: 'update', row: 301, values: { Qty: 1 } }),
      });
      expect((await update.json()).error).toMatchObject({ code: 'invalid_body', index: 299, row: 301 });
      expect(await book.fingerprint()).toBe(before);
      expect(await rowsOf(sheetId)).toHaveLength(300);
    });

    it('refuses 501 mutations with 400 saying how many, and writes nothing', async () => {
      const { sheetId, book } = await freshPeople();
      const before = await book.fingerprint();
      const mutations = Array.from({ length: 501 }, (_, i) => ({ op: 'append', values: { Name: `a${i}` } }));
      const res = await batch(sheetId, { mutations });
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error).toMatchObject({ code: 'invalid_body', limit: 500, count: 501 });
      expect(error.message).toContain('501');
      expect(error.message).toContain('500');
      expect(await book.fingerprint()).toBe(before);
    });

    it('refuses a row deleted twice, or updated after it was deleted, naming the mutation', async () => {
      const { sheetId, book } = await freshPeople();
      const before = await book.fingerprint();
      const twice = await batch(sheetId, {
        mutations: [
          { op: 'append', values: { Name: 'x' } },
          { op: 'delete', row: 2 },
          { op: 'delete', row: 2 },
        ],
      });
      expect(twice.status).toBe(400);
      expect((await twice.json()).error).toMatchObject({ code: 'invalid_body', index: 2, row: 2 });
      const updateAfter = await batch(sheetId, {
        mutations: [
          { op: 'delete', row: 4 },
          { op: 'update', row: 4, values: { Name: 'x' } },
        ],
      });
      expect(updateAfter.status).toBe(400);
      const { error } = await updateAfter.json();
      expect(error).toMatchObject({ code: 'invalid_body', index: 1, row: 4 });
      expect(error.message).toMatch(/^mutations\[1\]: row 4 is deleted earlier/);
      expect(await book.fingerprint()).toBe(before);
    });

    it.each([
      ['no body', undefined, undefined],
      ['an array', [{ op: 'delete', row: 1 }], undefined],
      ['a string', 'x', undefined],
      ['no mutations key', { mutation: [] }, undefined],
      ['mutations not an array', { mutations: { op: 'delete', row: 1 } }, undefined],
      ['an empty batch', { mutations: [] }, undefined],
      ['an extra top-level key', { mutations: [{ op: 'delete', row: 1 }], dryRun: true }, undefined],
      ['a mutation that is not an object', { mutations: [{ op: 'delete', row: 1 }, 'delete 2'] }, 1],
      [
        'an unknown op',
        {
          mutations: [
            { op: 'delete', row: 1 },
            { op: 'insert', values: { Name: 'x' } },
          ],
        },
        1,
      ],
      ['a missing op', { mutations: [{ row: 1 }] }, 0],
      ['an append with a row', { mutations: [{ op: 'append', row: 2, values: { Name: 'x' } }] }, 0],
      ['a delete with values', { mutations: [{ op: 'delete', row: 2, values: {} }] }, 0],
      ['an update without values', { mutations: [{ op: 'update', row: 2 }] }, 0],
      ['an update without row', { mutations: [{ op: 'update', values: { Name: 'x' } }] }, 0],
      ['a typo in a key', { mutations: [{ op: 'update', row: 2, vaules: { Name: 'x' } }] }, 0],
      ['row 0', { mutations: [{ op: 'delete', row: 0 }] }, 0],
      ['a negative row', { mutations: [{ op: 'delete', row: -1 }] }, 0],
      ['a fractional row', { mutations: [{ op: 'delete', row: 1.5 }] }, 0],
      ['a row as a string', { mutations: [{ op: 'delete', row: '1' }] }, 0],
      ['a row beyond safe integers', { mutations: [{ op: 'delete', row: 2 ** 53 }] }, 0],
      ['values as an array', { mutations: [{ op: 'append', values: ['x'] }] }, 0],
      ['values as null', { mutations: [{ op: 'append', values: null }] }, 0],
      ['a nested value', { mutations: [{ op: 'append', values: { Name: { first: 'x' } } }] }, 0],
      ['an array value', { mutations: [{ op: 'update', row: 1, values: { Name: ['x'] } }] }, 0],
      [
        'an append of only empty values',
        { mutations: [{ op: 'append', values: { Name: null, Age: '' } }] },
        0,
      ],
      [
        'empty values',
        {
          mutations: [
            { op: 'delete', row: 1 },
            { op: 'append', values: {} },
          ],
        },
        1,
      ],
    ])('400 invalid_body for %s, nothing written', async (_name, body, index) => {
      const { sheetId, book } = await freshPeople();
      const before = await book.fingerprint();
      const res =
        body === undefined
          ? await h.fetch(batchPath(sheetId), { method: 'POST' })
          : await batch(sheetId, body);
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error.code).toBe('invalid_body');
      if (index === undefined) expect(error.index).toBeUndefined();
      else {
        expect(error.index).toBe(index);
        expect(error.message).toMatch(new RegExp(`^mutations\\[${index}\\]`));
      }
      expect(await book.fingerprint()).toBe(before);
    });

    it('says what was wrong in the message, briefly', async () => {
      const { sheetId } = await freshPeople();
      const op = await batch(sheetId, { mutations: [{ op: 'insert', values: { Name: 'x' } }] });
      expect((await op.json()).error.message).toBe(
        'mutations[0]: "op" must be "append", "update", "delete" or "upsert", got "insert".',
      );
      const row = await batch(sheetId, {
        mutations: [
          { op: 'delete', row: 1 },
          { op: 'delete', row: { n: 1 } },
        ],
      });
      expect((await row.json()).error.message).toBe(
        'mutations[1]: "row" must be a positive integer, got an object.',
      );
      const extra = await batch(sheetId, { mutations: [{ op: 'delete', row: 1, values: {} }] });
      expect((await extra.json()).error.message).toBe(
        'mutations[0]: "delete" takes op, row; unexpected key "values".',
      );
    });

    it('names the field of a nested value', async () => {
      const { sheetId } = await freshPeople();
      const res = await batch(sheetId, {
        mutations: [
          { op: 'delete', row: 1 },
          { op: 'update', row: 2, values: { Age: 3, Name: { x: 1 } } },
        ],
      });
      expect((await res.json()).error).toMatchObject({ code: 'invalid_body', index: 1, field: 'Name' });
    });

    it('400 unknown_field for an unknown field in an append, with index and field', async () => {
      const { sheetId, book } = await freshPeople();
      const before = await book.fingerprint();
      const res = await batch(sheetId, {
        mutations: [
          { op: 'append', values: { Name: 'ok' } },
          { op: 'append', values: { Nmae: 'typo' } },
        ],
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: 'unknown_field', index: 1, field: 'Nmae' });
      expect(await book.fingerprint()).toBe(before);
    });
  });

  describe('keys, ids and retries', () => {
    it('replays a repeat with the same Idempotency-Key without writing again', async () => {
      const { sheetId } = await freshPeople();
      const body = {
        mutations: [
          { op: 'append', values: { Name: 'once' } },
          { op: 'update', row: 1, values: { Age: 99 } },
        ],
      };
      const headers = { 'idempotency-key': `batch-${n}` };
      const first = await batch(sheetId, body, { headers });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const firstBody = await first.text();
      const again = await batch(sheetId, body, { headers });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.text()).toBe(firstBody);
      expect(JSON.parse(firstBody)).toEqual({ appended: 1, updated: 1, deleted: 0 });
      const rows = await rowsOf(sheetId);
      expect(rows.filter((r) => r.Name === 'once')).toHaveLength(1);
      expect(rows).toHaveLength(7);
      // the same key on the other URL form is a different request
      const other = await batch(sheetId, body, { headers, form: 'slash' });
      expect(other.status).toBe(409);
      expect((await other.json()).error.code).toBe('idempotency_conflict');
      expect(await rowsOf(sheetId)).toHaveLength(7);
    });

    it('403 for a read-only key and for a key limited to another spreadsheet; nothing written', async () => {
      const { sheetId, book } = await freshPeople();
      const before = await book.fingerprint();
      const body = { mutations: [{ op: 'delete', row: 1 }] };
      const readOnly = await batch(sheetId, body, { auth: await h.createKey({ scope: 'read' }) });
      expect(readOnly.status).toBe(403);
      expect((await readOnly.json()).error.code).toBe('forbidden');
      const other = await freshPeople();
      const elsewhere = await h.createKey({ scope: 'read_write', connections: [other.conn.spreadsheetId] });
      const narrow = await batch(sheetId, body, { auth: elsewhere });
      expect(narrow.status).toBe(403);
      expect(await book.fingerprint()).toBe(before);
      const none = await h.fetch(batchPath(sheetId), {
        method: 'POST',
        auth: null,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(none.status).toBe(401);
    });

    it('404 sheet_not_found for an unknown or malformed sheet_id', async () => {
      const { conn } = await freshPeople();
      const body = { mutations: [{ op: 'delete', row: 1 }] };
      for (const id of ['nonsense', 'wb_nope~1', `${conn.spreadsheetId}~99`, `${conn.spreadsheetId}~`]) {
        const res = await batch(id, body);
        expect(res.status, id).toBe(404);
        expect((await res.json()).error.code, id).toBe('sheet_not_found');
      }
    });
  });
});

// Styles, merges, column widths and Excel's own view of formulas live in the .xlsx file: checked where there is one.
describe('the .xlsx file after a batch', () => {
  harnessOf('workbook');

  it('keeps styles, number formats, formulas, merges and other tabs of untouched cells (openpyxl)', async () => {
    const { sheetId, book } = await freshStyled(5);
    const file = book.file!;
    const res = await batch(sheetId, {
      mutations: [
        { op: 'update', row: 2, values: { Qty: 7, Note: 'changed' } },
        { op: 'delete', row: 1 },
        { op: 'append', values: { Order: 'O-6', Qty: 6, Price: 60 } },
      ],
    });
    expect(await res.json()).toEqual({ appended: 1, updated: 1, deleted: 1 });

    const [orders, summary] = (await readWithOpenpyxl(file)).sheets;
    const c = orders!.cells;
    // O-1 is gone: O-2 (updated) is on sheet row 2 now, O-5 on row 5, the new O-6 on row 6
    expect([2, 3, 4, 5, 6].map((r) => c[`A${r}`]?.value)).toEqual(['O-2', 'O-3', 'O-4', 'O-5', 'O-6']);
    expect(c.B2?.value).toBe(7);
    expect(c.F2?.value).toBe('changed');
    // header style
    expect(c.A1).toMatchObject({ value: 'Order', bold: true, fill: 'FFFFFF00' });
    expect(c.F1).toMatchObject({ value: 'Note', bold: true, fill: 'FFFFFF00' });
    // number formats, dates and formulas of untouched cells (formulas follow their row)
    expect(c.C2).toMatchObject({ value: 20, numFmt: '"$"#,##0.00' });
    expect(c.D2).toMatchObject({ value: '=B2*C2', numFmt: '"$"#,##0.00' });
    expect(c.D4).toMatchObject({ value: '=B4*C4', cached: 160, numFmt: '"$"#,##0.00' });
    expect(c.E5).toMatchObject({ value: '2024-01-05T00:00:00', numFmt: 'yyyy-mm-dd' });
    expect(c.A4?.fill).toBe('FFDDEEFF');
    // the appended row took the style of the row above
    expect(c.A6?.fill).toBe('FFDDEEFF');
    expect(c.C6).toMatchObject({ value: 60, numFmt: '"$"#,##0.00' });
    expect(c.E6?.numFmt).toBe('yyyy-mm-dd');
    // the merged note moved up with its rows; widths and the other tab are intact
    expect(orders!.merged).toEqual(['F3:F4']);
    expect(c.F3?.value).toBe('odd');
    expect(orders!.widths.A).toBe(18);
    expect(orders!.widths.F).toBe(40);
    expect(summary!.name).toBe('Summary');
    expect(summary!.cells.B2?.value).toBe('=SUM(Orders!D2:D5)');
    expect(summary!.cells.A1?.value).toBe('Metric');
  });
});
