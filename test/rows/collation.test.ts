/**
 * `search` and `sort` compare text with one collation, ignoring case and accents (`zoe` finds `Zoë`, and sorts
 * beside it); `search_exact` compares the whole value as it is. Through HTTP, on a workbook written by openpyxl.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import { runPython } from '../helpers/openpyxl.ts';

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'People'
ws.append(['Name', 'City'])
for row in [('Zoë', 'Köln'), ('Adam', 'Zürich'), ('zoe', 'Malmö'), ('Zoltan', 'Łódź'), ('ZOÉ', 'Straße'), ('Zoe', 'Oslo')]:
    ws.append(list(row))
wb.save(sys.argv[1])
`;

let h: Harness;
let book: ConnectionRecord;

beforeAll(async () => {
  h = await startHarness();
  const file = path.join(h.dir, 'people.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
});
afterAll(async () => {
  await h.close();
});

async function names(query: string): Promise<string[]> {
  const res = await h.fetch(rowsPath(book, 'People', query));
  expect(res.status).toBe(200);
  return (await res.json()).map((r: { Name: string }) => r.Name);
}

describe('one collation for search and sort', () => {
  it('search ignores case and accents as sort does; search_exact compares the value as it is', async () => {
    expect(await names('?search=Name:zoe')).toEqual(['Zoë', 'zoe', 'ZOÉ', 'Zoe']);
    expect(await names(`?search=${encodeURIComponent('Name:ZOË')}`)).toEqual(['Zoë', 'zoe', 'ZOÉ', 'Zoe']);
    expect(await names('?search=City:koln')).toEqual(['Zoë']);
    expect(await names('?search=City:zur')).toEqual(['Adam']);
    expect(await names('?search=City:lodz')).toEqual(['Zoltan']);
    expect(await names('?search=City:strasse')).toEqual(['ZOÉ']);
    // Sorting puts what search calls equal together, in sheet order.
    expect(await names('?sort=Name')).toEqual(['Adam', 'Zoë', 'zoe', 'ZOÉ', 'Zoe', 'Zoltan']);
    // search_exact compares the whole value, case and accents included.
    expect(await names(`?search_exact=${encodeURIComponent('Name:Zoë')}`)).toEqual(['Zoë']);
    expect(await names('?search_exact=Name:zoe')).toEqual(['zoe']);
  });
});
