/**
 * A formula in the header row names its column by its result, and that name follows the cells it refers to:
 * after a write changes them (on another tab or on its own) the column is renamed, as a fresh read of the file
 * would name it, and the file holds the new result for programs that do not calculate (read back by openpyxl).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Data'
ws.append(['Item', '="Weight ("&Settings!B2&")"', '="Items: "&COUNTA(A2:A50)'])
ws.append(['pen', 2])
ws.append(['ink', 3])
settings = wb.create_sheet('Settings')
settings.append(['Setting', 'Value'])
settings.append(['unit', 'kg'])
wb.save(sys.argv[1])
`;

const HEADER = `
import json, sys, openpyxl
print(json.dumps([c.value for c in openpyxl.load_workbook(sys.argv[1], data_only=True)['Data'][1]]))
`;

let h: Harness;
let file: string;
let book: ConnectionRecord;

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'book.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
});
afterAll(async () => {
  await h.close();
});

async function rows(sheet: string): Promise<Record<string, unknown>[]> {
  const res = await h.fetch(rowsPath(book, sheet));
  expect(res.status).toBe(200);
  return res.json();
}

async function write(method: string, sheet: string, rest: string, body: unknown): Promise<void> {
  const res = await h.fetch(rowsPath(book, sheet, rest), {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(method === 'POST' ? 201 : 200);
}

describe('a formula in the header row', () => {
  it('renames its column when a write changes what it refers to', async () => {
    expect(await rows('Data')).toEqual([
      { Item: 'pen', 'Weight (kg)': 2, 'Items: 2': null },
      { Item: 'ink', 'Weight (kg)': 3, 'Items: 2': null },
    ]);

    await write('PUT', 'Settings', '/1', { Value: 'lb' });
    expect((await rows('Data'))[0]).toEqual({ Item: 'pen', 'Weight (lb)': 2, 'Items: 2': null });
    expect(JSON.parse(await runPython(HEADER, [file]))).toEqual(['Item', 'Weight (lb)', 'Items: 2']);

    await write('POST', 'Data', '', { Item: 'pad', 'Weight (lb)': 1 });
    expect((await rows('Data'))[2]).toEqual({ Item: 'pad', 'Weight (lb)': 1, 'Items: 3': null });
    expect(JSON.parse(await runPython(HEADER, [file]))).toEqual(['Item', 'Weight (lb)', 'Items: 3']);
  });
});
