/**
 * `row_numbers=true`: shape B's `meta.rows` says where each returned row is in the tab, after filters, sorting and
 * paging, on `/api` and `/v1`; refused where there is no shape B to carry it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, startHarness } from '../helpers/harness.ts';

let h: Harness;
let base: string;
let sheetId: string;

beforeAll(async () => {
  h = await startHarness();
  const { connection } = await h.connectBook(await writePeopleWorkbook(h.dir));
  base = `/api/spreadsheets/${connection.userKey}/People`;
  sheetId = `${connection.spreadsheetId}~1`;
});
afterAll(async () => h.close());

describe('row_numbers', () => {
  it("gives each returned row's number, which GET of that row answers with the same values", async () => {
    const page = await (
      await h.fetch(`${base}?meta=true&row_numbers=true&sort=-Balance&limit=3&offset=1`)
    ).json();
    expect(page.meta).toMatchObject({ total: 6, limit: 3, offset: 1 });
    expect(page.meta.rows).toHaveLength(3);
    for (const [i, row] of page.meta.rows.entries()) {
      const one = await (await h.fetch(`${base}/${row}`)).json();
      expect(one).toEqual(page.data[i]);
    }
    // Sorted by Balance descending, Ann (1000, row 1) first; offset 1 starts at the next.
    expect(page.meta.rows).not.toContain(1);
    const v1 = await (
      await h.fetch(`/v1/sheets/${sheetId}/rows?row_numbers=1&search=Name:item&sort=Name`)
    ).json();
    expect(v1.meta.rows).toEqual([6, 5]);
    expect(v1.data.map((r: { Name: string }) => r.Name)).toEqual(['item2', 'item10']);
  });

  it('is absent unless asked for, and refused without shape B or with another format', async () => {
    expect((await (await h.fetch(`${base}?meta=true`)).json()).meta.rows).toBeUndefined();
    for (const query of [
      'row_numbers=true',
      'meta=true&row_numbers=true&format=csv',
      'meta=true&row_numbers=yes',
    ]) {
      const res = await h.fetch(`${base}?${query}`);
      expect(res.status, query).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe('invalid_parameter');
      expect(body.error.parameter).toBe('row_numbers');
    }
  });
});
