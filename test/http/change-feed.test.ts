import { afterEach, describe, expect, it } from 'vitest';
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

forEachKind((kind, store) => {
  let h: Harness;
  let conn: ConnectionRecord;
  let book: ConnectedBook;
  afterEach(() => h?.close());

  async function setup(): Promise<void> {
    h = await startHarness({ kind, store });
    book = await h.connectBook(await writePeopleWorkbook(h.dir));
    conn = book.connection;
  }

  const EPOCH = '2000-01-01T00:00:00Z';

  function feedPath(query: string, id = conn.spreadsheetId): string {
    return `/v1/spreadsheets/${id}/rows?${query}`;
  }

  function feed(since: string, extra = ''): Promise<TestResponse> {
    return h.fetch(feedPath(`sheet=People&updated_since=${encodeURIComponent(since)}${extra}`));
  }

  function write(method: string, path: string, body?: unknown): Promise<TestResponse> {
    return h.fetch(path, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
  }

  describe('GET /v1/spreadsheets/{id}/rows (change feed)', () => {
    it('lists API appends, updates and deletes oldest first', async () => {
      await setup();
      expect((await feed(EPOCH)).status).toBe(200); // first look: the baseline, nothing changed yet
      expect((await write('POST', rowsPath(conn, 'People'), { Name: 'Dee', Age: 52 })).status).toBe(201);
      expect((await write('PUT', rowsPath(conn, 'People', '/2'), { Age: 26 })).status).toBe(200);
      expect((await write('DELETE', rowsPath(conn, 'People', '/1'))).status).toBe(200);

      const res = await feed(EPOCH);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-total-count')).toBe('3');
      const body = await res.json();
      expect(body.data).toMatchObject([
        { row_index: 7, change: 'inserted', values: { Name: 'Dee', Age: 52 } },
        { row_index: 2, change: 'updated', values: { Name: 'bob', Age: 26 } },
        { row_index: 1, change: 'deleted', values: null },
      ]);
      const instants = body.data.map((e: { updated_at: string }) => e.updated_at);
      for (const t of instants) expect(t).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect([...instants].sort()).toEqual(instants);
      expect(new Set(instants).size).toBe(3);
      expect(body.meta).toEqual({ total: 3, limit: 100, offset: 0, next_updated_since: instants[2] });

      // Only what came after the instant given.
      const later = await (await feed(instants[0])).json();
      expect(later.data.map((e: { change: string }) => e.change)).toEqual(['updated', 'deleted']);
    });

    it('pages with limit/offset and resumes from next_updated_since without missing anything', async () => {
      await setup();
      await feed(EPOCH);
      // One append of two rows is one change: both rows carry the same instant.
      expect((await write('POST', rowsPath(conn, 'People'), [{ Name: 'R1' }, { Name: 'R2' }])).status).toBe(
        201,
      );
      expect((await write('PUT', rowsPath(conn, 'People', '/3'), { Age: 9 })).status).toBe(200);

      const seen: { row_index: number; change: string }[] = [];
      let next = '';
      for (let offset = 0; ; offset += 2) {
        const res = await feed(EPOCH, `&limit=2&offset=${offset}`);
        const page = await res.json();
        seen.push(...page.data);
        next = page.meta.next_updated_since;
        expect(page.meta).toMatchObject({ total: 3, limit: 2, offset });
        if (offset + page.data.length >= page.meta.total) {
          expect(res.headers.get('link')).not.toContain('rel="next"');
          break;
        }
        expect(res.headers.get('link')).toContain('rel="next"');
      }
      expect(seen.map((e) => [e.row_index, e.change])).toEqual([
        [7, 'inserted'],
        [8, 'inserted'],
        [3, 'updated'],
      ]);

      const nothing = await (await feed(next)).json();
      expect(nothing).toEqual({
        data: [],
        meta: { total: 0, limit: 100, offset: 0, next_updated_since: next },
      });

      expect((await write('DELETE', rowsPath(conn, 'People', '/8'))).status).toBe(200);
      const resumed = await (await feed(next)).json();
      expect(resumed.data).toMatchObject([{ row_index: 8, change: 'deleted', values: null }]);
      expect(resumed.meta.next_updated_since > next).toBe(true);
      expect((await (await feed(EPOCH, '&limit=9999')).json()).meta.limit).toBe(500);
    });

    it('accepts UTC instants and refuses anything else', async () => {
      await setup();
      for (const since of [
        '2024-03-01T09:30:00Z',
        '2024-03-01T09:30:00.250Z',
        '2024-03-01T09:30:00.123456Z',
        '2024-03-01T09:30:00+00:00',
      ]) {
        const res = await feed(since);
        expect(res.status, since).toBe(200);
        expect((await res.json()).meta.next_updated_since, since).toBe(
          new Date(Date.parse(since.replace('123456', '123'))).toISOString(),
        );
      }
      // An unencoded `+` arrives as a space.
      expect((await h.fetch(feedPath('sheet=People&updated_since=2024-03-01T09:30:00+00:00'))).status).toBe(
        200,
      );

      const bad: [string, string][] = [
        ['updated_since=2024-03-01T09:30:00Z', 'sheet'],
        ['sheet=&updated_since=2024-03-01T09:30:00Z', 'sheet'],
        ['sheet=People', 'updated_since'],
        ['sheet=People&updated_since=', 'updated_since'],
        ['sheet=People&updated_since=2024-03-01', 'updated_since'],
        ['sheet=People&updated_since=yesterday', 'updated_since'],
        ['sheet=People&updated_since=2024-03-01T09%3A30%3A00%2B02%3A00', 'updated_since'],
        ['sheet=People&updated_since=2024-03-01T09:30:00', 'updated_since'],
        ['sheet=People&updated_since=2024-02-30T09:30:00Z', 'updated_since'],
        ['sheet=People&updated_since=1709285400', 'updated_since'],
        [
          'sheet=People&updated_since=2024-03-01T09:30:00Z&updated_since=2024-03-02T09:30:00Z',
          'updated_since',
        ],
        ['sheet=People&updated_since=2024-03-01T09:30:00Z&limit=-1', 'limit'],
        ['sheet=People&updated_since=2024-03-01T09:30:00Z&offset=x', 'offset'],
      ];
      for (const [query, parameter] of bad) {
        const res = await h.fetch(feedPath(query));
        expect(res.status, query).toBe(400);
        const { error } = await res.json();
        expect(error.code, query).toBe('invalid_parameter');
        expect(error.parameter, query).toBe(parameter);
      }
    });

    it('answers 404 for an unknown tab or spreadsheet, 403 for a key limited to others, 401 without a key', async () => {
      await setup();
      const noSheet = await h.fetch(feedPath(`sheet=Nope&updated_since=${EPOCH}`));
      expect(noSheet.status).toBe(404);
      expect((await noSheet.json()).error.code).toBe('sheet_not_found');
      const noBook = await h.fetch(feedPath(`sheet=People&updated_since=${EPOCH}`, 'wb_nope'));
      expect(noBook.status).toBe(404);
      expect((await noBook.json()).error.code).toBe('spreadsheet_not_found');
      const other = (await h.connectBook(await writePeopleWorkbook(h.dir, 'other.xlsx'))).connection;
      const narrow = await h.createKey({ scope: 'read', connections: [other.spreadsheetId] });
      expect((await h.fetch(feedPath(`sheet=People&updated_since=${EPOCH}`), { auth: narrow })).status).toBe(
        403,
      );
      expect(
        (
          await h.fetch(feedPath(`sheet=People&updated_since=${EPOCH}`, other.spreadsheetId), {
            auth: narrow,
          })
        ).status,
      ).toBe(200);
      expect((await h.fetch(feedPath(`sheet=People&updated_since=${EPOCH}`), { auth: null })).status).toBe(
        401,
      );
      const tab = await h.fetch(
        feedPath(`sheet=${encodeURIComponent('Café ☕ Tab')}&updated_since=${EPOCH}`),
      );
      expect(tab.status).toBe(200);
    });

    it('shows an edit made by another program once the spreadsheet is looked at', async () => {
      await setup();
      const start = await (await feed(EPOCH)).json();
      expect(start.data).toEqual([]);

      await book.editOutside('People', { A4: 'Cid, Sr.' });

      const after = await (await feed(start.meta.next_updated_since)).json();
      expect(after.data).toMatchObject([{ row_index: 3, change: 'updated', values: { Name: 'Cid, Sr.' } }]);
      expect(after.meta.total).toBe(1);
    });
  });
});
