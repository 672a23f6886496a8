/**
 * Rows deleted from a tab full of formulas of every kind a delete can touch: each row's own product, a running
 * total (a range that loses a row), a reference to the next row (cut to #REF! when that row goes), ROW(), a test
 * of the row's value, and another tab's references and sums into it; and from a tab of values only, that another
 * tab's ranges end at, start at and read past. After each delete the results the API
 * answers (computed again only where the delete can have changed them, recalc-after-write.ts) must equal what a
 * full computation of the same file gives: the file saved again by openpyxl without any cached result, read
 * fresh, every formula computed.
 */
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../../server/repositories/connections.ts';
import { type Harness, rowsPath, startHarness } from '../../helpers/harness.ts';
import { runPython } from '../../helpers/openpyxl.ts';

const ROWS = 30;

const MAKE = `
import sys, openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'T'
ws.append(['A', 'B', 'C', 'D'])
kinds = [lambda i: f'=A{i}*B{i}', lambda i: f'=SUM(A$2:A{i})', lambda i: f'=A{i + 1}+1',
         lambda i: '=ROW()', lambda i: f'=IF(A{i}>10,"big","small")', lambda i: f'=C{i - 1}&"!"' if i > 2 else '=1']
for i in range(2, ${ROWS} + 2):
    ws.append([i * 3 % 17, i % 4, kinds[i % len(kinds)](i), f'=SUM(A{i}:B{i})'])
s = wb.create_sheet('S')
s.append(['What', 'Value'])
s.append(['fifth', '=T!A6'])
s.append(['sum', '=SUM(T!A2:A20)'])
s.append(['count', '=COUNT(T!A:A)'])
s.append(['tenth total', '=T!D11*2'])
s.append(['ends at the row deleted from U', '=SUM(U!A3:A6)'])
s.append(['starts at it', '=SUM(U!A6:A9)'])
s.append(['reads it', '=U!A6'])
s.append(['reads past it', '=U!A12'])
u = wb.create_sheet('U')
u.append(['A'])
for i in range(2, 16):
    u.append([i * 10])
wb.save(sys.argv[1])
`;

/** The file as openpyxl saves it again: every formula kept, every cached result dropped. */
const STRIP = `
import sys, openpyxl
openpyxl.load_workbook(sys.argv[1]).save(sys.argv[2])
`;

let h: Harness;
let book: ConnectionRecord;
let file: string;

beforeAll(async () => {
  h = await startHarness();
  file = path.join(h.dir, 'formulas.xlsx');
  await runPython(MAKE, [file]);
  book = await h.connect(file);
});
afterAll(async () => {
  await h.close();
});

async function tabs(of: ConnectionRecord): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const sheet of ['T', 'S', 'U']) {
    const res = await h.fetch(rowsPath(of, sheet, '?limit=1000'));
    expect(res.status).toBe(200);
    out[sheet] = await res.json();
  }
  return out;
}

describe('rows deleted from a tab of formulas', () => {
  it('leave every result as a full computation of the written file gives it', async () => {
    let left = ROWS;
    const deletes: [sheet: string, row: number][] = [
      ['U', 5],
      ...[5, 1, 12, 29, 7, 8, 20].map((row): [string, number] => ['T', row]),
      ['U', 1],
    ];
    for (const [round, [sheet, row]] of deletes.entries()) {
      if (row > left) continue;
      const res = await h.fetch(rowsPath(book, sheet, `/${row}`), { method: 'DELETE' });
      expect(res.status).toBe(200);
      if (sheet === 'T') left--;
      const served = await tabs(book);
      expect(served.T).toHaveLength(left);
      const fresh = path.join(h.dir, `fresh-${round}.xlsx`);
      const copy = path.join(h.dir, `copy-${round}.xlsx`);
      await copyFile(file, copy);
      await runPython(STRIP, [copy, fresh]);
      const computed = await tabs(await h.connect(fresh));
      expect(served, `after deleting row ${row} of ${sheet}`).toEqual(computed);
    }
  });
});
