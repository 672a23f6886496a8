import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { forEachKind, type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';

/** Header cells as users really type them, including ones that break naive JSON/XML/CSV writers. */
const HEADERS = [
  '__proto__',
  '1st place',
  'a<b>&"c"',
  'Ünïcode 名前',
  '  padded  ',
  '',
  'x,y',
  'a:b',
  'constructor',
];
const RESOLVED = [
  '__proto__',
  '1st place',
  'a<b>&"c"',
  'Ünïcode 名前',
  'padded',
  'F',
  'x,y',
  'a:b',
  'constructor',
];

forEachKind((kind, store) => {
  let h: Harness;
  let conn: ConnectionRecord;
  beforeAll(async () => {
    h = await startHarness({ kind, store });
    const file = path.join(h.dir, 'odd.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Odd');
    ws.addRow(HEADERS);
    ws.addRow(['p', 1, 'amp & <lt>', 'ü', 'pad', 'f', 'comma', 'colon', 'c']);
    ws.addRow(['q', 2, '', null, null, null, null, 'colon2', null]);
    await wb.xlsx.writeFile(file);
    conn = (await h.connectBook(file)).connection;
  });
  afterAll(() => h.close());

  describe('headers with odd names', () => {
    it('come out as own keys in JSON, in sheet order', async () => {
      const text = await (await h.fetch(rowsPath(conn, 'Odd'))).text();
      const rows = JSON.parse(text) as Record<string, unknown>[];
      expect(Object.keys(rows[0]!)).toEqual(RESOLVED);
      expect(Object.hasOwn(rows[0]!, '__proto__')).toBe(true);
      expect(Object.getOwnPropertyDescriptor(rows[0]!, '__proto__')?.value).toBe('p');
      expect(rows[0]!['a<b>&"c"']).toBe('amp & <lt>');
    });

    it('can be searched, sorted and projected with escapes', async () => {
      const q = `?search=${encodeURIComponent('a\\:b:colon2')}&fields=${encodeURIComponent('x\\,y,__proto__')}`;
      const res = await h.fetch(rowsPath(conn, 'Odd', q));
      expect(await res.json()).toEqual(JSON.parse('[{"x,y":null,"__proto__":"q"}]'));
      const sorted = await (
        await h.fetch(rowsPath(conn, 'Odd', `?sort=-${encodeURIComponent('1st place')}&fields=F`))
      ).json();
      expect(sorted).toEqual([{ F: null }, { F: 'f' }]);
    });

    it('survive CSV and XML with names recoverable', async () => {
      const csv = parseCsv(await (await h.fetch(rowsPath(conn, 'Odd', '?format=csv'))).text()) as string[][];
      expect(csv[0]).toEqual(RESOLVED);
      const xml = await (await h.fetch(rowsPath(conn, 'Odd', '?format=xml'))).text();
      const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(xml);
      const names = (doc.rows.row[0].field as { '@name': string }[]).map((f) => f['@name']);
      expect(names).toEqual(RESOLVED);
    });

    it('are written to by name', async () => {
      const res = await h.fetch(rowsPath(conn, 'Odd'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"__proto__":"r","a:b":"w","1st place":3}',
      });
      expect(res.status).toBe(201);
      const last = await (await h.fetch(rowsPath(conn, 'Odd', '/3?fields=__proto__,a:b,1st place'))).text();
      expect(JSON.parse(last)).toEqual(JSON.parse('{"__proto__":"r","a:b":"w","1st place":3}'));
    });
  });
});
