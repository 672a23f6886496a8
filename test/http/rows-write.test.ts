import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type ConnectedBook, forEachKind, type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

forEachKind((kind, store) => {
  let h: Harness;
  let n = 0;
  beforeAll(async () => {
    h = await startHarness({ kind, store });
  });
  afterAll(() => h.close());

  /** Each test gets its own spreadsheet so writes never leak between tests. */
  async function freshPeople(): Promise<{ conn: ConnectionRecord; book: ConnectedBook }> {
    const book = await h.connectBook(await writePeopleWorkbook(h.dir, `people-${++n}.xlsx`));
    return { conn: book.connection, book };
  }
  const post = (conn: ConnectionRecord, body: unknown, headers: Record<string, string> = {}) =>
    h.fetch(rowsPath(conn, 'People'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const rowsOf = async (conn: ConnectionRecord) =>
    (await (await h.fetch(rowsPath(conn, 'People', '?limit=1000'))).json()) as Record<string, unknown>[];

  describe('append', () => {
    it('appends one row after the last data row and answers 201 {appended}', async () => {
      const { conn, book } = await freshPeople();
      const res = await post(conn, { Name: 'Dee', Age: 52, Active: false, Code: '0042' });
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ appended: 1 });
      const rows = await rowsOf(conn);
      expect(rows).toHaveLength(7);
      expect(rows[6]).toMatchObject({ Name: 'Dee', Age: 52, Active: false, Code: '0042', Joined: null });
      expect(await book.cell('People', 'A8')).toBe('Dee');
      expect(await book.cell('People', 'B8')).toBe(52);
    });

    it('appends an array of rows in order', async () => {
      const { conn } = await freshPeople();
      const res = await post(conn, [{ Name: 'r1' }, { Name: 'r2' }, { Name: 'r3' }]);
      expect(await res.json()).toEqual({ appended: 3 });
      expect((await rowsOf(conn)).slice(-3).map((r) => r.Name)).toEqual(['r1', 'r2', 'r3']);
    });

    it('writes "=" strings as text for keys without the formula flag', async () => {
      const { conn, book } = await freshPeople();
      await post(conn, { Name: '=1+1' });
      expect(await book.cell('People', 'A8')).toBe('=1+1');
      expect((await rowsOf(conn))[6]!.Name).toBe('=1+1');
    });

    it('lands all of 50 parallel appends exactly once', async () => {
      const { conn } = await freshPeople();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => post(conn, { Name: `p${i}`, Age: i })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
      const appended = (await rowsOf(conn)).slice(6).map((r) => r.Name as string);
      expect(appended).toHaveLength(50);
      expect(new Set(appended)).toEqual(new Set(Array.from({ length: 50 }, (_, i) => `p${i}`)));
    });

    it('refuses an unknown field with 400 unknown_field and leaves the spreadsheet unchanged', async () => {
      const { conn, book } = await freshPeople();
      const before = await book.fingerprint();
      const res = await post(conn, [{ Name: 'ok' }, { Nmae: 'typo' }]);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: 'unknown_field', field: 'Nmae' });
      expect(await book.fingerprint()).toBe(before);
    });
  });

  describe('update and delete', () => {
    it('PUT changes only the named fields and answers {updated,row}', async () => {
      const { conn, book } = await freshPeople();
      const res = await h.fetch(rowsPath(conn, 'People', '/2'), {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Age: 26, G: null }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ updated: 1, row: 2 });
      const row = (await rowsOf(conn))[1]!;
      expect(row).toMatchObject({ Name: 'bob', Age: 26, Active: false, Code: '010' });
      expect(await book.cell('People', 'B3')).toBe(26);
    });

    it('PATCH is a synonym of PUT', async () => {
      const { conn } = await freshPeople();
      const res = await h.fetch(rowsPath(conn, 'People', '/1'), {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Name: 'Annie' }),
      });
      expect(await res.json()).toEqual({ updated: 1, row: 1 });
      expect((await rowsOf(conn))[0]!.Name).toBe('Annie');
    });

    it('DELETE removes the row and moves the rows below up', async () => {
      const { conn } = await freshPeople();
      const res = await h.fetch(rowsPath(conn, 'People', '/2'), { method: 'DELETE' });
      expect(await res.json()).toEqual({ deleted: 1, row: 2 });
      const names = (await rowsOf(conn)).map((r) => r.Name);
      expect(names).toEqual(['Ann', 'Cid, Jr.', null, 'item10', 'item2']);
    });

    it('If-Match with a stale ETag is 412 and changes nothing; the current ETag succeeds', async () => {
      const { conn, book } = await freshPeople();
      const first = await h.fetch(rowsPath(conn, 'People', '/1'));
      const etag = first.headers.get('etag')!;
      await h.fetch(rowsPath(conn, 'People', '/1'), {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Age: 32 }),
      });
      const before = await book.fingerprint();
      const stale = await h.fetch(rowsPath(conn, 'People', '/1'), {
        method: 'DELETE',
        headers: { 'if-match': etag },
      });
      expect(stale.status).toBe(412);
      expect((await stale.json()).error.code).toBe('precondition_failed');
      expect(await book.fingerprint()).toBe(before);
      const current = (await h.fetch(rowsPath(conn, 'People', '/1'))).headers.get('etag')!;
      const ok = await h.fetch(rowsPath(conn, 'People', '/1'), {
        method: 'DELETE',
        headers: { 'if-match': current },
      });
      expect(ok.status).toBe(200);
    });

    it('404 row_not_found for update/delete beyond the last row, spreadsheet unchanged', async () => {
      const { conn, book } = await freshPeople();
      const before = await book.fingerprint();
      const del = await h.fetch(rowsPath(conn, 'People', '/99'), { method: 'DELETE' });
      expect(del.status).toBe(404);
      expect((await del.json()).error.code).toBe('row_not_found');
      const put = await h.fetch(rowsPath(conn, 'People', '/99'), {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Name: 'x' }),
      });
      expect(put.status).toBe(404);
      expect(await book.fingerprint()).toBe(before);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first answer for a repeat and writes once; another body is 409', async () => {
      const { conn } = await freshPeople();
      const headers = { 'idempotency-key': 'abc-123' };
      const first = await post(conn, { Name: 'once' }, headers);
      const second = await post(conn, { Name: 'once' }, headers);
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      expect(await second.json()).toEqual({ appended: 1 });
      expect((await rowsOf(conn)).filter((r) => r.Name === 'once')).toHaveLength(1);
      const other = await post(conn, { Name: 'twice' }, headers);
      expect(other.status).toBe(409);
      expect((await other.json()).error.code).toBe('idempotency_conflict');
    });

    it('a body is matched by its bytes, and a record stored under its parsed form is still replayed', async () => {
      const { conn } = await freshPeople();
      const path = rowsPath(conn, 'People');
      const send = (body: string, key: string) =>
        h.fetch(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': key },
          body,
        });
      expect((await send('{"Name":"spaced"}', 'bytes-1')).status).toBe(201);
      // The same JSON spelled with other spacing is another body.
      expect((await send('{ "Name": "spaced" }', 'bytes-1')).status).toBe(409);
      // A record begun before bodies were fingerprinted by their bytes: the parsed body, serialized again.
      const apiKeyId = (await h.context.keys.findByKey(h.key))!.id;
      const earlier = createHash('sha256')
        .update(`POST\n${path}\n${JSON.stringify({ Name: 'earlier' })}`)
        .digest('hex');
      expect((await h.context.idempotency.begin(apiKeyId, 'earlier-1', earlier)).state).toBe('new');
      await h.context.idempotency.complete(
        apiKeyId,
        'earlier-1',
        201,
        'application/json; charset=utf-8',
        '{"appended":1}',
      );
      const repeat = await send('{"Name": "earlier"}', 'earlier-1');
      expect(repeat.status).toBe(201);
      expect(repeat.headers.get('idempotent-replayed')).toBe('true');
      expect((await rowsOf(conn)).filter((r) => r.Name === 'earlier')).toHaveLength(0);
      expect((await send('{"Name":"other"}', 'earlier-1')).status).toBe(409);
    });
  });

  describe('outside changes', () => {
    it('reads an edit made by another program and keeps it when writing', async () => {
      const { conn, book } = await freshPeople();
      await rowsOf(conn); // load the replica
      await book.editOutside('People', { A2: 'Ann (edited in Excel)' });
      expect((await rowsOf(conn))[0]!.Name).toBe('Ann (edited in Excel)');
      await post(conn, { Name: 'after' });
      const rows = await rowsOf(conn);
      expect(rows[0]!.Name).toBe('Ann (edited in Excel)');
      expect(rows.at(-1)!.Name).toBe('after');
    });
  });
});
