import vm from 'node:vm';
import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { forEachKind, type Harness, rowsPath, startHarness, type TestResponse } from '../helpers/harness.ts';

forEachKind((kind, store) => {
  let h: Harness;
  let people: ConnectionRecord;
  const list = (query = '') => h.fetch(rowsPath(people, 'People', query));
  const json = async (res: TestResponse) => ({ status: res.status, body: await res.json() });

  beforeAll(async () => {
    h = await startHarness({ kind, store });
    people = (await h.connectBook(await writePeopleWorkbook(h.dir))).connection;
  });
  afterAll(() => h.close());

  describe('list rows', () => {
    it('returns typed rows keyed by the resolved header (shape A)', async () => {
      expect(people.sourceKind).toBe(kind);
      const res = await list();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const rows = await res.json();
      expect(rows).toHaveLength(6);
      expect(rows[0]).toEqual({
        Name: 'Ann',
        Age: 31,
        Joined: '2024-03-01',
        Active: true,
        Balance: 1000,
        Code: '007',
        G: 'x',
        Name_2: 'first',
      });
      expect(rows[1].Joined).toBe('2023-12-24T09:30:00');
      expect(Object.values(rows[3]).every((v) => v === null)).toBe(true);
      expect(res.headers.get('x-total-count')).toBe('6');
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    });

    it('switches to shape B with meta=true and reports the applied limit and offset', async () => {
      const { body } = await json(await list('?meta=true&limit=2&offset=1'));
      expect(body.meta).toEqual({ total: 6, limit: 2, offset: 1 });
      expect(body.data.map((r: { Name: string }) => r.Name)).toEqual(['bob', 'Cid, Jr.']);
    });

    it('clamps limit to 1000 and returns the total with limit=0', async () => {
      expect((await json(await list('?meta=true&limit=5000'))).body.meta.limit).toBe(1000);
      const zero = await json(await list('?meta=true&limit=0'));
      expect(zero.body).toEqual({ data: [], meta: { total: 6, limit: 0, offset: 0 } });
    });

    it('filters with search (case-insensitive substring, AND) and search_exact', async () => {
      const names = async (q: string) =>
        ((await json(await list(q))).body as { Name: string }[]).map((r) => r.Name);
      expect(await names('?search=Name:ITEM')).toEqual(['item10', 'item2']);
      expect(await names('?search=Name:item,Age:40&search_exact=Code:x')).toEqual(['item2']);
      expect(await names(`?search=${encodeURIComponent('Name:cid\\, jr')}`)).toEqual(['Cid, Jr.']);
      expect(await names(`?search_exact=${encodeURIComponent('Code:A\\:1')}`)).toEqual(['Cid, Jr.']);
      expect(await names('?search_exact=Code:00')).toEqual([]);
      const filtered = await list('?search=Name:item&limit=1');
      expect(filtered.headers.get('x-total-count')).toBe('2');
    });

    it('searches the formatted form with values=formatted', async () => {
      const res = await json(
        await list(`?values=formatted&search=${encodeURIComponent('Balance:$1\\,000')}`),
      );
      expect(res.body).toHaveLength(1);
      expect(res.body[0].Balance).toBe('$1,000.00');
      expect(res.body[0].Joined).toBe('3/1/2024');
      expect(res.body[0].Age).toBe('31');
    });

    it('sorts numerically, with numeric text collation, stable ties and nulls last both ways', async () => {
      const names = async (q: string) =>
        ((await json(await list(q))).body as { Name: string | null }[]).map((r) => r.Name);
      expect(await names('?sort=Age')).toEqual(['bob', 'Ann', 'item10', 'item2', 'Cid, Jr.', null]);
      expect(await names('?sort=-Age')).toEqual(['item10', 'item2', 'Ann', 'bob', 'Cid, Jr.', null]);
      expect(await names('?sort=Name')).toEqual(['Ann', 'bob', 'Cid, Jr.', 'item2', 'item10', null]);
      expect(await names('?sort=-Age,-Name')).toEqual(['item10', 'item2', 'Ann', 'bob', 'Cid, Jr.', null]);
      expect(await names('?sort=-Age,Name')).toEqual(['item2', 'item10', 'Ann', 'bob', 'Cid, Jr.', null]);
    });

    it('projects fields in the order given', async () => {
      const { body } = await json(await list('?fields=Age,Name&limit=1'));
      expect(Object.keys(body[0])).toEqual(['Age', 'Name']);
    });

    it('sends RFC 8288 Link headers that page through the rows', async () => {
      const res = await list('?limit=2&offset=2&sort=Name');
      const link = res.headers.get('link') ?? '';
      const rels = Object.fromEntries(
        [...link.matchAll(/<([^>]+)>; rel="(\w+)"/g)].map((m) => [m[2], new URL(m[1]!)]),
      );
      expect(Object.keys(rels).sort()).toEqual(['first', 'last', 'next', 'prev']);
      expect(rels.next!.searchParams.get('offset')).toBe('4');
      expect(rels.prev!.searchParams.get('offset')).toBe('0');
      expect(rels.last!.searchParams.get('offset')).toBe('4');
      expect(rels.next!.searchParams.get('sort')).toBe('Name');
      const next = await h.fetch(rels.next!.pathname + rels.next!.search);
      expect(((await next.json()) as { Name: string }[]).map((r) => r.Name)).toEqual(['item10', null]);
    });

    it('writes csv, tsv, xml and jsonp that real parsers read back', async () => {
      const csv = await list('?format=csv&fields=Name,Code,Name_2');
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      const csvText = await csv.text();
      expect(csvText).toContain('\r\n');
      const records = parseCsv(csvText) as string[][];
      expect(records[0]).toEqual(['Name', 'Code', 'Name_2']);
      expect(records[3]).toEqual(['Cid, Jr.', 'A:1', 'has, comma']);
      expect(csv.headers.get('x-total-count')).toBe('6');

      const tsv = await list('?format=tsv&fields=Name,Name_2');
      expect(tsv.headers.get('content-type')).toBe('text/tab-separated-values; charset=utf-8');
      const tsvLines = (await tsv.text()).split('\n');
      expect(tsvLines[5]).toBe('item10\tback\\\\slash');
      expect(tsvLines[6]).toBe('item2\ttab\\there');

      const xml = await list('?format=xml&limit=2');
      expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
      const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(
        await xml.text(),
      );
      expect(doc.rows['@total']).toBe('6');
      const fields = doc.rows.row[0].field as { '@name': string; '#text'?: unknown }[];
      expect(fields.map((f) => f['@name'])).toContain('Name_2');

      const jsonp = await list('?format=jsonp&callback=cb.done&meta=true&limit=1');
      expect(jsonp.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(jsonp.headers.get('x-content-type-options')).toBe('nosniff');
      let received: unknown;
      vm.runInNewContext(await jsonp.text(), { cb: { done: (v: unknown) => (received = v) } });
      expect(received).toMatchObject({ meta: { total: 6, limit: 1 } });
    });

    it('serves tabs whose names have spaces and Unicode', async () => {
      const res = await h.fetch(rowsPath(people, 'Café ☕ Tab'));
      expect(await res.json()).toEqual([{ Key: 'a', Value: 1 }]);
    });
  });

  describe('one row', () => {
    it('gets a row by number with an ETag and honours If-None-Match', async () => {
      const res = await h.fetch(rowsPath(people, 'People', '/2'));
      expect(res.status).toBe(200);
      expect((await res.json()).Name).toBe('bob');
      const etag = res.headers.get('etag');
      expect(etag).toMatch(/^".+"$/);
      const again = await h.fetch(rowsPath(people, 'People', '/2'), { headers: { 'if-none-match': etag! } });
      expect(again.status).toBe(304);
    });

    it('applies projection and formats to one row', async () => {
      const res = await h.fetch(rowsPath(people, 'People', '/1?fields=Balance,Name&values=formatted'));
      expect(await res.json()).toEqual({ Balance: '$1,000.00', Name: 'Ann' });
      const csv = await h.fetch(rowsPath(people, 'People', '/1?fields=Name,Age&format=csv'));
      expect(parseCsv(await csv.text())).toEqual([
        ['Name', 'Age'],
        ['Ann', '31'],
      ]);
    });

    it('answers 404 row_not_found past the last row and 400 for a non-integer row', async () => {
      const missing = await json(await h.fetch(rowsPath(people, 'People', '/7')));
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('row_not_found');
      for (const bad of ['0', '-1', '1.5', 'abc', '1e2']) {
        const res = await json(await h.fetch(rowsPath(people, 'People', `/${bad}`)));
        expect(res.status, bad).toBe(400);
        expect(res.body.error.code).toBe('invalid_parameter');
      }
    });
  });

  describe('parameter errors', () => {
    const cases: [string, string, string][] = [
      ['?limit=-1', 'invalid_parameter', 'limit'],
      ['?limit=abc', 'invalid_parameter', 'limit'],
      ['?offset=1.5', 'invalid_parameter', 'offset'],
      ['?limit=1&limit=2', 'invalid_parameter', 'limit'],
      ['?format=yaml', 'invalid_parameter', 'format'],
      ['?format=jsonp', 'invalid_parameter', 'callback'],
      ['?format=jsonp&callback=alert(1)', 'invalid_parameter', 'callback'],
      ['?meta=maybe', 'invalid_parameter', 'meta'],
      ['?values=pretty', 'invalid_parameter', 'values'],
      ['?search=NoColon', 'invalid_parameter', 'search'],
    ];
    for (const [query, code, parameter] of cases) {
      it(`${query} -> 400 ${code}`, async () => {
        const res = await json(await list(query));
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code, parameter });
        expect(res.body.error.request_id).toMatch(/^req_/);
      });
    }

    for (const param of ['search=Nope:x', 'search_exact=Nope:x', 'sort=-Nope', 'fields=Name,Nope']) {
      it(`${param} -> 400 unknown_field naming the field`, async () => {
        const res = await json(await list(`?${param}`));
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'unknown_field', field: 'Nope' });
      });
    }

    it('ignores unknown parameters such as jQuery cache busters', async () => {
      expect((await list('?_=12345')).status).toBe(200);
    });
  });
});
