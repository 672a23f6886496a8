/**
 * A write that only deletes rows gives its tab's new version by cutting runs (deleted-rows-tab.ts): exactly what
 * the general rule (edited-tab.ts) gives, rows, format codes and header, for any set of deleted rows, empty rows
 * at the end included; anything else is left to the general rule.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CellValue } from '../../../server/sources/source.ts';
import { CellTab, SharedStrings } from '../../../server/sources/workbook/cell-tab.ts';
import { tabAfterDeletes } from '../../../server/sources/workbook/ooxml/deleted-rows-tab.ts';
import { editedTab } from '../../../server/sources/workbook/ooxml/edited-tab.ts';
import type { SheetRowChanges } from '../../../server/sources/workbook/ooxml/sheet-edit.ts';

const cell = fc.constantFrom<CellValue>(null, null, 'a', 1, true);

function tab(typed: CellValue[][], headerRow: number, lastHeader: string): CellTab {
  const width = 3;
  const codes = new Uint16Array(typed.length * width).map((_, i) => i % 7);
  return new CellTab({
    sourceSheetId: '1',
    name: 'T',
    header: ['a', 'b', lastHeader || 'C'],
    headerTexts: ['a', 'b', lastHeader],
    headerRow,
    typed,
    codes,
    numberFormats: [],
    shared: new SharedStrings([], new Int32Array(0)),
  });
}

const changes = (deleted: number[]): SheetRowChanges => ({
  updated: [],
  deleted,
  cleared: [],
  appended: [],
  newHeader: false,
});

const plain = (t: CellTab) => ({ ...t, codes: [...t.codes], headerTexts: t.headerTexts });

describe('a write that only deletes rows', () => {
  it('gives the tab the general rule gives', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        fc.constantFrom('c', ''),
        (rows, headerRow, picks, lastHeader) => {
          // A read tab ends at its last row with a value.
          while (rows.length > 0 && rows.at(-1)!.every((v) => v === null)) rows.pop();
          if (rows.length === 0) return;
          const old = tab(rows, headerRow, lastHeader);
          const deleted = picks.map((p) => headerRow + 1 + (p % rows.length));
          const fast = tabAfterDeletes(old, changes(deleted));
          const general = editedTab(old, changes([...new Set(deleted)].sort((a, b) => a - b)), () => {
            throw new Error('a delete reads no row back');
          });
          if (fast === undefined) {
            expect(lastHeader).toBe('');
            return;
          }
          expect(plain(fast)).toEqual(plain(general));
          expect([...fast.codes]).toEqual([...general.codes]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves any other write to the general rule', () => {
    const old = tab([[1, 2, 3]], 1, 'c');
    expect(tabAfterDeletes(old, { ...changes([2]), updated: [2] })).toBeUndefined();
    expect(tabAfterDeletes(old, { ...changes([2]), appended: [3] })).toBeUndefined();
    expect(tabAfterDeletes(old, changes([1]))).toBeUndefined(); // the header row
  });
});
