/**
 * A write that deletes no row leaves every other row where it was, and the engine then builds the tab's new
 * version from the old one plus the rows it wrote (edited-tab.ts), formulas included. Held against a fresh
 * parse of the written bytes: values, format codes and every formula cell, on a 100-row tab whose every row
 * has formulas (as pandas and openpyxl write them: no cached results), and on every corpus file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planWrite } from '../../../../server/sources/plan.ts';
import type { CellValue, Mutation, TabSnapshot } from '../../../../server/sources/source.ts';
import type { CellTab } from '../../../../server/sources/workbook/cell-tab.ts';
import { newWorkbook } from '../../../../server/sources/workbook/ooxml/new-workbook.ts';
import { OoxmlDocument } from '../../../../server/sources/workbook/ooxml/ooxml-document.ts';

const CORPUS = path.resolve(import.meta.dirname, '../../../fixtures/xlsx-corpus');
const PLAIN = { allowFormulas: false, userEntered: false };
const FORMULAS = { allowFormulas: true, userEntered: false };

/** What a tab says, formulas by cell included (they are not enumerable on CellTab). */
function seen(tab: TabSnapshot) {
  return {
    header: tab.header,
    typed: tab.typed,
    formulas: [...(tab as CellTab).formulas].sort((a, b) => a[0] - b[0]),
  };
}

async function expectSameAsFresh(doc: OoxmlDocument, label: string): Promise<void> {
  const fresh = await OoxmlDocument.parse(Buffer.concat(await doc.serialize()));
  expect(doc.tabs().map(seen), label).toEqual(fresh.tabs().map(seen));
}

describe('writes that delete no row', () => {
  it('keep a formula-per-row tab exactly as a fresh read of the file gives it', async () => {
    const rows: CellValue[][] = [];
    for (let r = 2; r <= 101; r++) rows.push([`item ${r}`, r, r * 1.5]);
    const bytes = newWorkbook({
      tabs: [
        {
          name: 'Data',
          rows: [
            ['Item', 'Qty', 'Price', 'Total'],
            ...rows.map((row, i) => [...row, { formula: `B${i + 2}*C${i + 2}` }]),
          ],
        },
      ],
    });
    const doc = await OoxmlDocument.parse(bytes);
    const tab = doc.tabs()[0]!;
    expect((tab as CellTab).formulas.size).toBe(100);
    const writes: Mutation[][] = [
      [{ op: 'append', values: { Item: 'new', Qty: 2, Price: 3 } }],
      [{ op: 'update', row: 5, values: { Qty: 7 } }],
      [{ op: 'update', row: 10, values: { Total: '=B11+C11' } }],
      [{ op: 'update', row: 20, values: { Total: null } }],
      [
        { op: 'append', values: { Item: 'f', Total: '=1+1' } },
        { op: 'update', row: 1, values: { Item: 'first' } },
      ],
    ];
    for (const mutations of writes) {
      await doc.apply(tab.sourceSheetId, planWrite(doc.tab(tab.sourceSheetId)!, mutations), FORMULAS);
      await expectSameAsFresh(doc, JSON.stringify(mutations));
    }
    const after = doc.tab(tab.sourceSheetId)! as CellTab;
    // 100, one replaced by another (row 10), one cleared (row 20), one appended; the plain appended row has none.
    expect(after.formulas.size).toBe(100);
    expect(after.typed[4]?.[3]).toBe(7 * 9); // API row 5 = sheet row 6: Qty now 7, Price 9, computed again
  });

  const files = fs.readdirSync(CORPUS).filter((f) => /\.xls[xm]$/.test(f));

  it('keep every corpus file exactly as a fresh read of the written file gives it', async () => {
    let checked = 0;
    for (const file of files.sort()) {
      const doc = await OoxmlDocument.parse(fs.readFileSync(path.join(CORPUS, file)));
      const tab = doc.tabs()[0];
      if (!tab || tab.header.length === 0 || tab.typed.length < 1) continue;
      const [first] = tab.header as [string];
      await doc.apply(
        tab.sourceSheetId,
        planWrite(tab, [
          { op: 'update', row: 1, values: { [first]: 'updated' } },
          { op: 'append', values: { [first]: 'appended' } },
        ]),
        PLAIN,
      );
      await expectSameAsFresh(doc, file);
      checked++;
    }
    expect(checked).toBeGreaterThan(250);
  }, 90_000);
});
