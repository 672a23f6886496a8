import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { forEachKind, type Harness, startHarness } from '../helpers/harness.ts';

forEachKind((kind, store) => {
  let h: Harness;
  let conn: ConnectionRecord;
  beforeAll(async () => {
    h = await startHarness({ kind, store });
    conn = (await h.connectBook(await writePeopleWorkbook(h.dir))).connection;
  });
  afterAll(() => h.close());

  describe('/v1', () => {
    it('lists reachable spreadsheets with tabs, headers and row counts', async () => {
      const body = await (await h.fetch('/v1/spreadsheets')).json();
      expect(body.data).toHaveLength(1);
      const s = body.data[0];
      expect(s).toMatchObject({
        spreadsheet_id: conn.spreadsheetId,
        user_key: conn.userKey,
        source: kind,
      });
      expect(s.sheets.map((t: { name: string }) => t.name)).toEqual(['People', 'Café ☕ Tab']);
      expect(s.sheets[0].header).toEqual([
        'Name',
        'Age',
        'Joined',
        'Active',
        'Balance',
        'Code',
        'G',
        'Name_2',
      ]);
      expect(s.sheets[0].row_count).toBe(6);
      const one = await (await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json();
      expect(one.sheets).toEqual(s.sheets);
      const missing = await h.fetch('/v1/spreadsheets/wb_nope');
      expect(missing.status).toBe(404);
      expect((await missing.json()).error.code).toBe('spreadsheet_not_found');
    });

    it('hides connections a key may not reach', async () => {
      const other = (await h.connectBook(await writePeopleWorkbook(h.dir, 'other.xlsx'))).connection;
      const narrow = await h.createKey({ connections: [other.spreadsheetId] });
      const body = await (await h.fetch('/v1/spreadsheets', { auth: narrow })).json();
      expect(body.data.map((s: { spreadsheet_id: string }) => s.spreadsheet_id)).toEqual([
        other.spreadsheetId,
      ]);
      expect((await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`, { auth: narrow })).status).toBe(403);
    });

    it('pages a tab by sheet_id, always shape B, limit capped at 500', async () => {
      const { sheets } = await (await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json();
      const sheetId = sheets[0].sheet_id as string;
      const res = await h.fetch(
        `/v1/sheets/${encodeURIComponent(sheetId)}/rows?limit=2&offset=1&fields=Name`,
      );
      expect(await res.json()).toEqual({
        data: [{ Name: 'bob' }, { Name: 'Cid, Jr.' }],
        meta: { total: 6, limit: 2, offset: 1 },
      });
      const capped = await (
        await h.fetch(`/v1/sheets/${encodeURIComponent(sheetId)}/rows?limit=9999`)
      ).json();
      expect(capped.meta.limit).toBe(500);
      const sorted = await (
        await h.fetch(`/v1/sheets/${encodeURIComponent(sheetId)}/rows?sort=-Age&search=Name:item`)
      ).json();
      expect(sorted.data.map((r: { Name: string }) => r.Name)).toEqual(['item10', 'item2']);
      const bad = await h.fetch('/v1/sheets/nonsense/rows');
      expect(bad.status).toBe(404);
      expect((await bad.json()).error.code).toBe('sheet_not_found');
    });
  });
});
