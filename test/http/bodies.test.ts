/**
 * Request bodies a client gets wrong answer with a message about what is wrong, and write nothing: bytes that
 * are not UTF-8, valid JSON of the wrong type, and writes to rows past the end of the tab.
 */
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type ConnectedBook, forEachKind, type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

forEachKind((kind, store) => {
  let h: Harness;
  let conn: ConnectionRecord;
  let book: ConnectedBook;
  /** The public sheet_id of the People tab. */
  let sheetId: string;
  beforeAll(async () => {
    h = await startHarness({ kind, store });
    book = await h.connectBook(await writePeopleWorkbook(h.dir, 'bodies.xlsx'));
    conn = book.connection;
    sheetId = (await (await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json()).sheets[0].sheet_id;
  });
  afterAll(() => h.close());

  const raw = (method: string, rest: string, body: string | Uint8Array, contentType = 'application/json') =>
    h.fetch(rowsPath(conn, 'People', rest), { method, headers: { 'content-type': contentType }, body });

  describe('bodies', () => {
    it('a body that is not valid UTF-8 is 400 and nothing is stored', async () => {
      const before = await book.fingerprint();
      // {"Name":"caf\xe9"}: Latin-1 é, which a lenient decoder would store as U+FFFD.
      const bytes = Buffer.concat([Buffer.from('{"Name":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
      const res = await raw('POST', '', bytes);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe('invalid_body');
      expect(body.error.message).toMatch(/UTF-8/);
      expect(await book.fingerprint()).toBe(before);
    });

    it('a declared charset other than UTF-8 is 415', async () => {
      const res = await raw('POST', '', '{"Name":"x"}', 'application/json; charset=latin1');
      expect(res.status).toBe(415);
      expect((await res.json()).error.code).toBe('unsupported_media_type');
    });

    it('valid JSON of the wrong type says which type is wanted, not "not valid JSON"', async () => {
      for (const body of ['"just text"', '42', 'true', 'null']) {
        const post = await raw('POST', '', body);
        expect(post.status).toBe(400);
        const message = (await post.json()).error.message as string;
        expect(message).not.toMatch(/not valid JSON/);
        expect(message).toMatch(/JSON object/);
        const put = await raw('PUT', '/1', body);
        expect(put.status).toBe(400);
        expect((await put.json()).error.message).toMatch(/JSON object/);
      }
      const batch = await h.fetch(`/v1/sheets/${encodeURIComponent(sheetId)}/rows:batchUpdate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '[1,2]',
      });
      expect(batch.status).toBe(400);
      expect((await batch.json()).error.message).toMatch(/JSON object/);
    });

    it('an item of a POSTed array that is wrong is named by its index, and nothing is written', async () => {
      const before = await book.fingerprint();
      const wrongType = await (await raw('POST', '', '[{"Name":"ok"}, 1]')).json();
      expect(wrongType.error).toMatchObject({ code: 'invalid_body', index: 1 });
      expect(wrongType.error.message).toMatch(/^Item 1 of the array must be a JSON object/);
      const blank = await (await raw('POST', '', '[{"Name":null}]')).json();
      expect(blank.error).toMatchObject({ code: 'invalid_body', index: 0 });
      const nested = await (await raw('POST', '', '[{"Name":"ok"}, {"Name":{"a":1}}]')).json();
      expect(nested.error).toMatchObject({ code: 'invalid_body', index: 1, field: 'Name' });
      expect(await book.fingerprint()).toBe(before);
    });

    it('broken JSON is still "not valid JSON"', async () => {
      const res = await raw('POST', '', '{"Name":');
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toMatch(/not valid JSON/);
    });
  });

  describe('PUT and DELETE past the last row answer exactly like GET', () => {
    it('404 row_not_found with row_count, no mutation wording', async () => {
      const get = await h.fetch(rowsPath(conn, 'People', '/99'));
      expect(get.status).toBe(404);
      const expected = (await get.json()).error;
      expect(expected).toMatchObject({ code: 'row_not_found', row: 99 });
      expect(typeof expected.row_count).toBe('number');

      for (const method of ['PUT', 'PATCH', 'DELETE']) {
        const res = await raw(method, '/99', method === 'DELETE' ? '' : '{"Name":"x"}');
        expect(res.status, method).toBe(404);
        const error = (await res.json()).error;
        const { request_id: _a, ...got } = error;
        const { request_id: _b, ...want } = expected;
        expect(got, method).toEqual(want);
        expect(error.message).not.toMatch(/mutation/i);
      }
    });
  });

  describe('counts in messages', () => {
    it('a one-row tab "has 1 row", in the row routes and in a batch', async () => {
      const file = path.join(h.dir, 'one-row.xlsx');
      const wb = new ExcelJS.Workbook();
      wb.addWorksheet('One').addRows([['Name'], ['Ann']]);
      await wb.xlsx.writeFile(file);
      const one = (await h.connectBook(file)).connection;
      const get = await h.fetch(rowsPath(one, 'One', '/2'));
      expect((await get.json()).error.message).toMatch(/the tab has 1 row\./);
      const { sheets } = await (await h.fetch(`/v1/spreadsheets/${one.spreadsheetId}`)).json();
      const batch = await h.fetch(`/v1/sheets/${encodeURIComponent(sheets[0].sheet_id)}/rows:batchUpdate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mutations: [{ op: 'delete', row: 2 }] }),
      });
      expect((await batch.json()).error.message).toMatch(/\(the tab has 1 row\)/);
    });
  });
});
