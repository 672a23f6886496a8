/**
 * A tab's rows by sheet_id (`/v1/sheets/{sheetId}/rows[/{row}]`), its change feed (`/v1/sheets/{sheetId}/changes`)
 * and its columns (`GET /v1/sheets/{sheetId}`), through real HTTP on every kind and store. A row by sheet_id is
 * the row by userKey and name: the same request answers the same body, ETag and error on both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
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

const ROW_TEMPLATE = '/v1/sheets/{sheetId}/rows/{row}';
const EPOCH = '2000-01-01T00:00:00Z';

/** An error body without its request id, which differs from request to request. */
async function errorOf(res: TestResponse): Promise<Record<string, unknown>> {
  const { request_id: _, ...rest } = (await res.json()).error;
  return rest;
}

function jsonInit(method: string, body?: unknown, headers: Record<string, string> = {}): RequestInit {
  if (body === undefined) return { method, headers };
  return { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** A workbook written by openpyxl with a column of each kind of value, an empty one and a mixed one. */
async function writeKindsWorkbook(dir: string): Promise<string> {
  const file = `${dir}/kinds.xlsx`;
  await runPython(
    `import datetime, sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Kinds'
ws.append(['Amount', 'Label', 'Done', 'Due', 'Empty', 'Mixed', 'Long'])
ws.append([1, 'alpha', True, datetime.date(2024, 3, 1), None, 1, 'x' * 100])
ws.append([2.5, 'beta', False, datetime.datetime(2024, 3, 2, 9, 30), None, 'one', 'short'])
ws.append([1, 'alpha', True, datetime.date(2024, 3, 3), None, None, None])
ws.append([4, 'gamma', False, datetime.date(2024, 3, 4), None, 2, 'y'])
ws.append([5, 'delta', None, None, None, None, None])
wb.save(sys.argv[1])`,
    [file],
  );
  return file;
}

forEachKind((kind, store) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ kind, store });
  });
  afterAll(() => h.close());

  /** A fresh People workbook connected as the harness's kind, with its People tab's sheet_id. */
  async function people(
    name: string,
  ): Promise<{ conn: ConnectionRecord; book: ConnectedBook; sheetId: string }> {
    const book = await h.connectBook(await writePeopleWorkbook(h.dir, `${name}.xlsx`));
    const { sheets } = await (await h.fetch(`/v1/spreadsheets/${book.connection.spreadsheetId}`)).json();
    return { conn: book.connection, book, sheetId: encodeURIComponent(sheets[0].sheet_id) };
  }

  describe('rows by sheet_id', () => {
    it('gets a row with its ETag and 304, the same answer as /api for the same request', async () => {
      const { conn, sheetId } = await people('get');
      for (const query of ['', '?fields=Name,Joined', '?values=formatted', '?format=csv']) {
        const api = await h.fetch(rowsPath(conn, 'People', `/2${query}`));
        const v1 = await h.fetch(`/v1/sheets/${sheetId}/rows/2${query}`);
        expect(v1.status, query).toBe(200);
        expect(v1.headers.get('content-type'), query).toBe(api.headers.get('content-type'));
        expect(await v1.text(), query).toBe(await api.text());
        expect(v1.headers.get('etag'), query).toBe(api.headers.get('etag'));
      }
      const first = await h.fetch(`/v1/sheets/${sheetId}/rows/1`);
      expect(await first.json()).toMatchObject({ Name: 'Ann', Age: 31, Joined: '2024-03-01', Active: true });
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"/);
      const again = await h.fetch(`/v1/sheets/${sheetId}/rows/1`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
    });

    it('appends, updates with If-Match and deletes, as /api sees it', async () => {
      const { conn, book, sheetId } = await people('write');
      const one = await h.fetch(`/v1/sheets/${sheetId}/rows`, jsonInit('POST', { Name: 'Dee', Age: 52 }));
      expect(one.status).toBe(201);
      expect(await one.json()).toEqual({ appended: 1 });
      const two = await h.fetch(
        `/v1/sheets/${sheetId}/rows`,
        jsonInit('POST', [{ Name: 'Eve' }, { Name: 'Fay', Active: true }]),
      );
      expect(await two.json()).toEqual({ appended: 2 });
      expect((await (await h.fetch(rowsPath(conn, 'People', '/8'))).json()).Name).toBe('Eve');

      const stale = (await h.fetch(`/v1/sheets/${sheetId}/rows/7`)).headers.get('etag')!;
      const patched = await h.fetch(
        `/v1/sheets/${sheetId}/rows/7`,
        jsonInit('PATCH', { Age: 53 }, { 'if-match': stale }),
      );
      expect(patched.status).toBe(200);
      expect(await patched.json()).toEqual({ updated: 1, row: 7 });
      const current = patched.headers.get('etag')!;
      expect(current).not.toBe(stale);
      expect((await h.fetch(rowsPath(conn, 'People', '/7'))).headers.get('etag')).toBe(current);

      // A stale If-Match changes nothing, by PUT, PATCH or DELETE.
      const before = await book.fingerprint();
      for (const [method, body] of [
        ['PUT', { Age: 99 }],
        ['PATCH', { Age: 99 }],
        ['DELETE', undefined],
      ] as const) {
        const refused = await h.fetch(
          `/v1/sheets/${sheetId}/rows/7`,
          jsonInit(method, body, { 'if-match': stale }),
        );
        expect(refused.status, method).toBe(412);
        const error = await errorOf(refused);
        expect(error, method).toMatchObject({ code: 'precondition_failed', row: 7 });
        expectDocumentedError(error, 412, method.toLowerCase(), ROW_TEMPLATE);
      }
      expect(await book.fingerprint()).toBe(before);
      expect(await (await h.fetch(rowsPath(conn, 'People', '/7'))).json()).toMatchObject({
        Name: 'Dee',
        Age: 53,
      });

      const put = await h.fetch(
        `/v1/sheets/${sheetId}/rows/7`,
        jsonInit('PUT', { Code: 'D-1' }, { 'if-match': current }),
      );
      expect(await put.json()).toEqual({ updated: 1, row: 7 });
      const deleted = await h.fetch(
        `/v1/sheets/${sheetId}/rows/7`,
        jsonInit('DELETE', undefined, { 'if-match': put.headers.get('etag')! }),
      );
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toEqual({ deleted: 1, row: 7 });
      expect((await (await h.fetch(rowsPath(conn, 'People', '/7'))).json()).Name).toBe('Eve');
      const page = await (await h.fetch(rowsPath(conn, 'People', '?limit=1&meta=true'))).json();
      expect(page.meta.total).toBe(8);
    });

    it('writes "=" text as text for a key without formulas, as /api does, and a formula for one with them', async () => {
      const { conn, sheetId } = await people('formulas');
      expect((await h.fetch(`/v1/sheets/${sheetId}/rows`, jsonInit('POST', { Name: '=1+1' }))).status).toBe(
        201,
      );
      expect(await (await h.fetch(rowsPath(conn, 'People', '/7'))).json()).toMatchObject({ Name: '=1+1' });
      const formulas = await h.createKey({ name: 'formulas', scope: 'read_write', allowFormulas: true });
      const written = await h.fetch(`/v1/sheets/${sheetId}/rows/7`, {
        ...jsonInit('PATCH', { Age: '=2+3' }),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${formulas}` },
      });
      expect(written.status).toBe(200);
      const row = await (await h.fetch(`/v1/sheets/${sheetId}/rows/7?values=formula`)).json();
      expect(row).toMatchObject({ Name: '=1+1', Age: '=2+3' });
      expect(await (await h.fetch(`/v1/sheets/${sheetId}/rows/7`)).json()).toMatchObject({
        Name: '=1+1',
        Age: 5,
      });
    });

    it('refuses what /api refuses, with the same error, and changes nothing', async () => {
      const { conn, book, sheetId } = await people('refusals');
      const other = await people('refusals-other');
      const readKey = await h.createKey({ name: 'read', scope: 'read' });
      const elsewhere = await h.createKey({ name: 'elsewhere', connections: [other.conn.spreadsheetId] });
      const before = await book.fingerprint();
      const cases: {
        name: string;
        method: string;
        rest: string;
        body?: unknown;
        auth?: string;
        status: number;
        code: string;
      }[] = [
        {
          name: 'read key appends',
          method: 'POST',
          rest: '',
          body: { Name: 'x' },
          auth: readKey,
          status: 403,
          code: 'forbidden',
        },
        {
          name: 'read key updates',
          method: 'PATCH',
          rest: '/1',
          body: { Name: 'x' },
          auth: readKey,
          status: 403,
          code: 'forbidden',
        },
        {
          name: 'read key deletes',
          method: 'DELETE',
          rest: '/1',
          auth: readKey,
          status: 403,
          code: 'forbidden',
        },
        {
          name: 'other spreadsheet key reads',
          method: 'GET',
          rest: '/1',
          auth: elsewhere,
          status: 403,
          code: 'forbidden',
        },
        {
          name: 'other spreadsheet key updates',
          method: 'PUT',
          rest: '/1',
          body: { Name: 'x' },
          auth: elsewhere,
          status: 403,
          code: 'forbidden',
        },
        { name: 'row 0', method: 'GET', rest: '/0', status: 400, code: 'invalid_parameter' },
        {
          name: 'row abc',
          method: 'PATCH',
          rest: '/abc',
          body: { Name: 'x' },
          status: 400,
          code: 'invalid_parameter',
        },
        { name: 'row -1', method: 'DELETE', rest: '/-1', status: 400, code: 'invalid_parameter' },
        { name: 'row past the end', method: 'GET', rest: '/99', status: 404, code: 'row_not_found' },
        {
          name: 'update past the end',
          method: 'PATCH',
          rest: '/99',
          body: { Name: 'x' },
          status: 404,
          code: 'row_not_found',
        },
        {
          name: 'unknown field',
          method: 'POST',
          rest: '',
          body: { Nmae: 'x' },
          status: 400,
          code: 'unknown_field',
        },
      ];
      for (const c of cases) {
        const init = { ...jsonInit(c.method, c.body), ...(c.auth ? { auth: c.auth } : {}) };
        const api = await h.fetch(rowsPath(conn, 'People', c.rest), init);
        const v1 = await h.fetch(`/v1/sheets/${sheetId}/rows${c.rest}`, init);
        expect(v1.status, c.name).toBe(c.status);
        expect(api.status, c.name).toBe(c.status);
        const error = await errorOf(v1);
        expect(error.code, c.name).toBe(c.code);
        expect(error, c.name).toEqual(await errorOf(api));
        const template = c.rest === '' ? '/v1/sheets/{sheetId}/rows' : ROW_TEMPLATE;
        expectDocumentedError(error, c.status, c.method.toLowerCase(), template);
      }
      expect(await book.fingerprint()).toBe(before);
    });

    it('answers 404 sheet_not_found for a sheet_id that names no tab', async () => {
      const { conn } = await people('missing');
      for (const id of [`${conn.spreadsheetId}~9999`, 'wb_nope~1', 'nonsense']) {
        for (const [method, rest] of [
          ['GET', '/1'],
          ['POST', ''],
          ['PATCH', '/1'],
          ['DELETE', '/1'],
        ] as const) {
          const res = await h.fetch(
            `/v1/sheets/${encodeURIComponent(id)}/rows${rest}`,
            jsonInit(method, method === 'GET' || method === 'DELETE' ? undefined : { Name: 'x' }),
          );
          expect(res.status, `${method} ${id}`).toBe(404);
          const error = await errorOf(res);
          expect(error, `${method} ${id}`).toEqual({
            code: 'sheet_not_found',
            message: `No tab with sheet_id "${id}".`,
          });
        }
      }
    });

    it('keeps rows/batchUpdate the batch: POST works, other methods are 405 there and on the new paths', async () => {
      const { conn, sheetId } = await people('batch');
      for (const path of ['rows/batchUpdate', 'rows:batchUpdate']) {
        const res = await h.fetch(
          `/v1/sheets/${sheetId}/${path}`,
          jsonInit('POST', { mutations: [{ op: 'update', row: 1, values: { Age: 32 } }] }),
        );
        expect(res.status, path).toBe(200);
        expect(await res.json(), path).toEqual({ appended: 0, updated: 1, deleted: 0 });
      }
      expect(await (await h.fetch(rowsPath(conn, 'People', '/1'))).json()).toMatchObject({ Age: 32 });
      const allowed: [string, string, string][] = [
        ['GET', 'rows/batchUpdate', 'POST'],
        ['PATCH', 'rows/batchUpdate', 'POST'],
        ['DELETE', 'rows/batchUpdate', 'POST'],
        ['PUT', 'rows', 'DELETE, GET, HEAD, PATCH, POST'],
        ['POST', 'rows/1', 'DELETE, GET, HEAD, PATCH, PUT'],
        ['POST', 'changes', 'GET, HEAD'],
      ];
      for (const [method, path, allow] of allowed) {
        const res = await h.fetch(
          `/v1/sheets/${sheetId}/${path}`,
          jsonInit(method, method === 'GET' ? undefined : {}),
        );
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
        expect((await errorOf(res)).code).toBe('method_not_allowed');
      }
    });
  });

  describe('GET /v1/sheets/{sheetId}/changes', () => {
    it('is the feed by name for the same data, with its errors', async () => {
      const { conn, sheetId } = await people('feed');
      const byName = (query: string) =>
        h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}/rows?sheet=People&${query}`);
      const byId = (query: string, init?: Parameters<Harness['fetch']>[1]) =>
        h.fetch(`/v1/sheets/${sheetId}/changes?${query}`, init);
      expect(await (await byId(`updated_since=${EPOCH}`)).json()).toMatchObject({ data: [] });
      await h.fetch(`/v1/sheets/${sheetId}/rows`, jsonInit('POST', { Name: 'Dee', Age: 52 }));
      await h.fetch(`/v1/sheets/${sheetId}/rows/2`, jsonInit('PATCH', { Age: 26 }));
      await h.fetch(`/v1/sheets/${sheetId}/rows/1`, jsonInit('DELETE'));

      for (const query of [`updated_since=${EPOCH}`, `updated_since=${EPOCH}&limit=2&offset=1`]) {
        const a = await byName(query);
        const b = await byId(query);
        expect(b.status, query).toBe(200);
        expect(b.headers.get('x-total-count'), query).toBe(a.headers.get('x-total-count'));
        expect(await b.json(), query).toEqual(await a.json());
      }
      const all = await (await byId(`updated_since=${EPOCH}`)).json();
      expect(all.data.map((e: { change: string }) => e.change)).toEqual(['inserted', 'updated', 'deleted']);
      const later = await (await byId(`updated_since=${encodeURIComponent(all.data[0].updated_at)}`)).json();
      expect(later.data.map((e: { change: string }) => e.change)).toEqual(['updated', 'deleted']);

      for (const query of ['', 'updated_since=2024-03-01', `updated_since=${EPOCH}&limit=x`]) {
        const a = await byName(query);
        const b = await byId(query);
        expect(b.status, query).toBe(400);
        const error = await errorOf(b);
        expect(error, query).toEqual(await errorOf(a));
        expectDocumentedError(error, 400, 'get', '/v1/sheets/{sheetId}/changes');
      }
      const readKey = await h.createKey({ name: 'feed-read', scope: 'read' });
      expect((await byId(`updated_since=${EPOCH}`, { auth: readKey })).status).toBe(200);
      expect((await byId(`updated_since=${EPOCH}`, { auth: null })).status).toBe(401);
      const missing = await h.fetch(`/v1/sheets/${conn.spreadsheetId}~9999/changes?updated_since=${EPOCH}`);
      expect(missing.status).toBe(404);
      expect((await errorOf(missing)).code).toBe('sheet_not_found');
    });
  });

  describe('GET /v1/sheets/{sheetId} columns', () => {
    it('gives each column its type and examples, on a workbook written by openpyxl', async () => {
      const book = await h.connectBook(await writeKindsWorkbook(h.dir));
      const { sheets } = await (await h.fetch(`/v1/spreadsheets/${book.connection.spreadsheetId}`)).json();
      const res = await h.fetch(`/v1/sheets/${encodeURIComponent(sheets[0].sheet_id)}`);
      expect(res.status).toBe(200);
      const sheet = await res.json();
      expect(sheet.row_count).toBe(5);
      expect(sheet.columns).toEqual([
        { name: 'Amount', type: 'number', examples: [1, 2.5, 4] },
        { name: 'Label', type: 'text', examples: ['alpha', 'beta', 'gamma'] },
        { name: 'Done', type: 'boolean', examples: [true, false] },
        { name: 'Due', type: 'date', examples: ['2024-03-01', '2024-03-02T09:30:00', '2024-03-03'] },
        { name: 'Empty', type: 'empty', examples: [] },
        { name: 'Mixed', type: 'mixed', examples: [1, 'one', 2] },
        { name: 'Long', type: 'text', examples: [`${'x'.repeat(79)}…`, 'short', 'y'] },
      ]);
      expect(sheet.columns.map((c: { name: string }) => c.name)).toEqual(sheet.header);
      // The examples are the typed values the rows give.
      const rows = await (await h.fetch(`/v1/sheets/${encodeURIComponent(sheets[0].sheet_id)}/rows`)).json();
      expect(rows.data[1]).toMatchObject({ Amount: 2.5, Due: '2024-03-02T09:30:00', Mixed: 'one' });
    });
  });
});
