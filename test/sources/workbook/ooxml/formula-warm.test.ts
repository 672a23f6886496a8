/**
 * A write's preparation looks a tab's formulas over before the write needs them (formula-warm.ts): a slice at
 * a time, so that what else the service's thread has to do (reads) runs between the slices, and as the
 * recalculation would (every tab's; a formula naming a defined name is always computed again). The write then
 * finds the work done, and its results are those of a full computation. The workbook is made by openpyxl: a
 * formula in every row, as it writes them (no cached result), one formula reading a defined name, and a second
 * tab of formulas reading the first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planWrite } from '../../../../server/sources/plan.ts';
import type { CellTab } from '../../../../server/sources/workbook/cell-tab.ts';
import { keptIndex } from '../../../../server/sources/workbook/ooxml/formula-index.ts';
import { readersMade, readersOf } from '../../../../server/sources/workbook/ooxml/formula-readers.ts';
import { warmFormulas } from '../../../../server/sources/workbook/ooxml/formula-warm.ts';
import { HeldTabs } from '../../../../server/sources/workbook/ooxml/held-tabs.ts';
import { OoxmlDocument } from '../../../../server/sources/workbook/ooxml/ooxml-document.ts';
import { OoxmlPackage } from '../../../../server/sources/workbook/ooxml/ooxml-package.ts';
import type { OpenWorkbook } from '../../../../server/sources/workbook/ooxml/open-workbook.ts';
import { WorkbookTabs } from '../../../../server/sources/workbook/ooxml/workbook-tabs.ts';
import { ZipArchive } from '../../../../server/sources/workbook/ooxml/zip-archive.ts';
import { runPython } from '../../../helpers/openpyxl.ts';
import { turnsDuring } from '../../../helpers/turns-during.ts';
import { PLAIN } from '../helpers.ts';

const ROWS = 30_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-warm-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const MAKE = `
import sys, openpyxl
from openpyxl.workbook.defined_name import DefinedName
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'T'
ws.append(['A', 'B', 'Total'])
for i in range(2, ${ROWS} + 2):
    ws.append([i % 13 + 1, i % 7 + 1, f'=A{i}*B{i}'])
ws['D2'] = '=SUM(Rate)'
wb.defined_names.append(DefinedName('Rate', attr_text='T!$A$2'))
s = wb.create_sheet('S')
s.append(['Ref'])
for i in range(2, 52):
    s.append([f'=T!C{i}+1'])
wb.save(sys.argv[1])
`;

async function workbook(): Promise<Buffer> {
  const file = path.join(dir, 'totals.xlsx');
  if (!fs.existsSync(file)) await runPython(MAKE, [file]);
  return fs.readFileSync(file);
}

describe('formulas looked over before a write', () => {
  it('a slice at a time, as the recalculation looks them over', async () => {
    const pkg = new OoxmlPackage(ZipArchive.open(await workbook()));
    const book = new WorkbookTabs(pkg);
    const wb: OpenWorkbook = {
      pkg,
      book,
      held: new HeldTabs({ pkg, book, limits: undefined }, []),
      precedents: new Map(),
    };
    const id = book.list[0]!.entry.sheetId;
    // Turns of the event loop taken while the formulas are looked over: a read would be answered in each.
    expect(await turnsDuring(warmFormulas(wb, id))).toBeGreaterThan(2);

    const tab = wb.held.get(id) as CellTab;
    const index = keptIndex(tab.formulas)!;
    expect(index.cells).toHaveLength(ROWS + 1);
    expect(readersMade(index)).toBe(true);
    const readers = readersOf(index, () => {
      throw new Error('made already: nothing to work out');
    });
    const at = (row: number, column: number) =>
      index.cells.findIndex((cell) => cell.row === row && cell.column === column);
    // C5 reads row 5 alone, in columns A and B; D2 names a defined name, which the text cannot follow: always
    // computed again.
    const ofC5 = readers.byTab
      .get('t')!
      .flatMap(({ left, right, pool }) => pool.intervals().map((interval) => [left, right, ...interval]))
      .filter(([, , , , owner]) => owner === at(5, 3));
    expect(ofC5).toEqual([
      [1, 1, 5, 5, at(5, 3)],
      [2, 2, 5, 5, at(5, 3)],
    ]);
    expect(readers.always).toEqual([at(2, 4)]);
    // The other tab's formulas too, which the recalculation after a write looks over as well: each reads T.
    const other = wb.held.get(book.list[1]!.entry.sheetId) as CellTab;
    const otherIndex = keptIndex(other.formulas)!;
    expect(readersMade(otherIndex)).toBe(true);
    const bands = readersOf(otherIndex, () => 'always').byTab.get('t')!;
    expect(bands.map(({ left, right, pool }) => [left, right, pool.size])).toEqual([[3, 3, 50]]);
  });

  it('waits for a write: a document prepared behind a read holds nothing of it', async () => {
    const doc = await OoxmlDocument.parse(await workbook());
    const id = doc.tabs()[0]!.sourceSheetId;
    const tab = doc.tab(id) as CellTab;
    await doc.prepare(id, { ahead: true });
    expect(keptIndex(tab.formulas)).toBeUndefined();
    await doc.prepare(id);
    expect(readersMade(keptIndex(tab.formulas)!)).toBe(true);
  });

  it('leaves the writes after it computing what a full computation gives', async () => {
    const doc = await OoxmlDocument.parse(await workbook());
    const id = doc.tabs()[0]!.sourceSheetId;
    await doc.prepare(id);
    await doc.apply(id, planWrite(doc.tab(id)!, [{ op: 'update', row: 4, values: { A: 100 } }]), PLAIN);
    await doc.apply(id, planWrite(doc.tab(id)!, [{ op: 'delete', row: 2 }]), PLAIN);
    await doc.prepare(id);
    await doc.apply(id, planWrite(doc.tab(id)!, [{ op: 'update', row: 3, values: { B: 10 } }]), PLAIN);
    const file = path.join(dir, 'written.xlsx');
    fs.writeFileSync(file, Buffer.concat(await doc.serialize()));
    // Row 4 of the file was data row 3 (row 5 before the delete): A 100, B 10, its total cached as 1000.
    const read = await runPython(
      `
import sys, json, openpyxl
ws = openpyxl.load_workbook(sys.argv[1], data_only=True)['T']
print(json.dumps([[c.value for c in row[:3]] for row in ws.iter_rows(min_row=2, max_row=6)]))
`,
      [file],
    );
    const rows = JSON.parse(read) as number[][];
    for (const [a, b, total] of rows) expect(total).toBe(a! * b!);
    expect(rows[2]).toEqual([100, 10, 1000]);
  });
});
