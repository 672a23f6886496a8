/**
 * `where` as a client sends it, on the People workbook (test/helpers/fixtures.ts): percent-encoded in the query,
 * ANDed with `search`, blank meaning no filter, with paging, sorting, CSV and the page cache; and every refusal in
 * the contract's envelope: the position of a syntax error and what was expected there, an unknown column named.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

let h: Harness;
let dir: string;
let people: ConnectionRecord;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-where-requests-'));
  h = await startHarness();
  people = await h.connect(await writePeopleWorkbook(dir));
});

afterAll(async () => {
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

const list = (where: string, rest = '') =>
  h.fetch(rowsPath(people, 'People', `?where=${encodeURIComponent(where)}${rest}`));

describe('where on a listing', () => {
  it('filters by typed comparisons, and an empty cell is != anything', async () => {
    const older = await (await list('Age >= 31')).json();
    expect(older.map((r: { Name: string }) => r.Name)).toEqual(['Ann', 'item10', 'item2']);
    const notForty = await (await list('Age != 40')).json();
    expect(notForty.map((r: { Name: string }) => r.Name)).toEqual(['Ann', 'bob', 'Cid, Jr.', null]);
    // A text '40' is not the number 40.
    expect(await (await list("Age = '40'")).json()).toEqual([]);
  });

  it('is ANDed with search, pages with X-Total-Count, sorts, and renders any format', async () => {
    const res = await list(
      "Active = true or Code starts with 'item'",
      '&search=Name:i&sort=-Balance&limit=1&format=csv',
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total-count')).toBe('2');
    expect(await res.text()).toMatch(/^Name,Age,/);
    const json = await (
      await list("Active = true or Code starts with 'item'", '&search=Name:i&sort=-Balance')
    ).json();
    expect(json.map((r: { Name: string }) => r.Name)).toEqual(['item10', 'Cid, Jr.']);
  });

  it('takes a blank where as no filter, and answers a repeated one from the page cache alike', async () => {
    const all = await (await h.fetch(rowsPath(people, 'People'))).json();
    expect(await (await list('  ')).json()).toEqual(all);
    const first = await (await list('Balance between 0 and 100')).json();
    expect(await (await list('Balance between 0 and 100')).json()).toEqual(first);
    expect(first.map((r: { Name: string }) => r.Name)).toEqual(['bob', 'item10', 'item2']);
  });

  it('refuses a malformed where with the position and what was expected, and changes nothing', async () => {
    const res = await list('Age >= ');
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error).toMatchObject({ code: 'invalid_parameter', parameter: 'where', position: 7 });
    expect(error.expected).toEqual(['a number', "a 'string'", 'true', 'false']);
    expect(error.message).toContain('position 7');
    expect(error.request_id).toBeTruthy();
  });

  it('names an unknown column, and refuses where given twice', async () => {
    const res = await list("Age > 1 and Nope = 'x'");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'unknown_field', field: 'Nope', position: 12 });
    const twice = await h.fetch(rowsPath(people, 'People', '?where=Age%3E1&where=Age%3C2'));
    expect(twice.status).toBe(400);
    expect((await twice.json()).error).toMatchObject({ code: 'invalid_parameter', parameter: 'where' });
  });

  it('answers /v1 alike, with the rows where they are in the tab', async () => {
    const listed = await (await h.fetch(`/v1/spreadsheets/${people.spreadsheetId}`)).json();
    const sheetId = listed.sheets[0].sheet_id;
    const res = await h.fetch(
      `/v1/sheets/${sheetId}/rows?where=${encodeURIComponent('"Name" is null')}&row_numbers=true`,
    );
    const body = await res.json();
    expect(body.meta).toMatchObject({ total: 1, rows: [4] });
  });
});
