/**
 * The one rule for naming a tab (spreadsheets/find-tab.ts), over real HTTP and a real .xlsx written by
 * openpyxl: a name matches exactly, else the one tab that differs only in letter case; two tabs that differ only
 * in case need the exact name; a `sheet_id` keeps finding its tab after a rename in another program.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

const run = promisify(execFile);
let h: Harness;
afterEach(() => h?.close());

/** People, Data and DATA. openpyxl refuses names equal but for case, as Excel does; files written by other tools
 * can hold them, so the second title is set past openpyxl's check. */
const WRITE_BOOK = `
import sys, openpyxl
wb = openpyxl.Workbook()
people = wb.active
people.title = 'People'
people.append(['Name', 'Age'])
people.append(['Ada', 36])
lower = wb.create_sheet('Data')
lower.append(['X'])
lower.append([1])
upper = wb.create_sheet('placeholder')
upper._WorkbookChild__title = 'DATA'
upper.append(['X'])
upper.append([2])
wb.save(sys.argv[1])
`;

/** Another program renames a tab and saves the file. */
const RENAME_TAB = `
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
wb[sys.argv[2]].title = sys.argv[3]
wb.save(sys.argv[1])
`;

const python = (script: string, ...args: string[]) => run('/usr/bin/python3', ['-c', script, ...args]);

async function connectBook() {
  h = await startHarness();
  const file = path.join(h.dir, 'names.xlsx');
  await python(WRITE_BOOK, file);
  return { file, conn: await h.connect(file) };
}

describe('naming a tab', () => {
  it('by its exact name, or by a name differing only in case when one tab matches', async () => {
    const { conn } = await connectBook();
    const exact = await h.fetch(rowsPath(conn, 'People'));
    expect(await exact.json()).toEqual([{ Name: 'Ada', Age: 36 }]);
    const folded = await h.fetch(rowsPath(conn, 'pEOPLE'));
    expect(folded.status).toBe(200);
    expect(await folded.json()).toEqual([{ Name: 'Ada', Age: 36 }]);

    // Writes follow the same rule: the row lands in People.
    const append = await h.fetch(rowsPath(conn, 'people'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ Name: 'Bob', Age: 41 }),
    });
    expect(append.status).toBe(201);
    expect(await (await h.fetch(rowsPath(conn, 'People'))).json()).toEqual([
      { Name: 'Ada', Age: 36 },
      { Name: 'Bob', Age: 41 },
    ]);
  });

  it('two tabs differing only in case need the exact name; a folded one is 404 naming the tabs', async () => {
    const { conn } = await connectBook();
    expect(await (await h.fetch(rowsPath(conn, 'Data'))).json()).toEqual([{ X: 1 }]);
    expect(await (await h.fetch(rowsPath(conn, 'DATA'))).json()).toEqual([{ X: 2 }]);
    const ambiguous = await h.fetch(rowsPath(conn, 'data'));
    expect(ambiguous.status).toBe(404);
    const { error } = await ambiguous.json();
    expect(error).toMatchObject({ code: 'sheet_not_found', sheet: 'data' });
    expect(error.message).toContain('"Data", "DATA"');
  });

  it('by sheet_id, whatever the tab is called now; the old name is gone', async () => {
    const { file, conn } = await connectBook();
    const described = await (await h.fetch(`/v1/spreadsheets/${conn.spreadsheetId}`)).json();
    const people = described.sheets.find((s: { name: string }) => s.name === 'People');

    await python(RENAME_TAB, file, 'People', 'Staff');
    const byId = await h.fetch(`/v1/sheets/${encodeURIComponent(people.sheet_id)}`);
    expect(byId.status).toBe(200);
    expect(await byId.json()).toMatchObject({ sheet_id: people.sheet_id, name: 'Staff' });
    expect((await h.fetch(rowsPath(conn, 'People'))).status).toBe(404);
    expect(await (await h.fetch(rowsPath(conn, 'staff'))).json()).toEqual([{ Name: 'Ada', Age: 36 }]);
  });
});
