/**
 * A delete carries the recalculation's index of a tab's formulas over to the tab's new version
 * (formula-index-carry.ts) instead of it being made again. The recalculation decides from the index which
 * formulas a write reaches, so the carried index must be the one a new index of the new version would be:
 * the same cells, rows and texts in the same order, and the same readers once made (formula-readers.ts: what
 * each formula reads, by tab). Checked on generated tabs of formulas of every kind (own rows above and below the
 * delete, ranges across it, whole columns, another tab, ROW, constants), deleting any rows through the delete's
 * own path (simple-write-tab.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CellValue } from '../../../../server/sources/source.ts';
import { CellTab, SharedStrings } from '../../../../server/sources/workbook/cell-tab.ts';
import { FormatCodes } from '../../../../server/sources/workbook/format-codes.ts';
import { precedentsOf, shiftFormula } from '../../../../server/sources/workbook/formulas/formula-text.ts';
import {
  type FormulaIndex,
  formulaIndex,
  keptIndex,
} from '../../../../server/sources/workbook/ooxml/formula-index.ts';
import { readersOf } from '../../../../server/sources/workbook/ooxml/formula-readers.ts';
import type { SheetRowChanges } from '../../../../server/sources/workbook/ooxml/sheet-edit.ts';
import { tabAfterSimpleWrite } from '../../../../server/sources/workbook/ooxml/simple-write-tab.ts';
import { RowMap } from '../../../../server/sources/workbook/row-map.ts';

const WIDTH = 3;
const SHEET = 't';

/** A formula of data row `r` (sheet row `r + 2`) in a tab of `rows` data rows, by kind. */
const formulaOf = (kind: number, r: number, rows: number, far: number): string =>
  [
    `A${r + 2}*B${r + 2}`,
    `SUM(A2:A${rows + 1})`,
    `A${Math.min(r + 2 + far, 1_048_576)}+1`,
    `$B$${2 + (far % Math.max(rows, 1))}`,
    'SUM(A:A)',
    `Other!A${r + 2}`,
    'ROW()',
    '1+2',
    `A${r + 2}+T!B${r + 2}`,
  ][kind % 9]!;

const tabOf = (rows: number, formulas: Map<number, string>, header: Map<number, string>): CellTab =>
  new CellTab({
    sourceSheetId: '1',
    name: 'T',
    header: ['a', 'b', 'c'],
    headerTexts: ['a', 'b', 'c'],
    headerRow: 1,
    typed: Array.from({ length: rows }, (_, r): CellValue[] => [r, r * 2, null]),
    codes: FormatCodes.perColumn([0, 0, 0], WIDTH),
    numberFormats: [],
    shared: new SharedStrings([], new Int32Array(0)),
  }).withFormulaTexts(formulas, header);

/** The index as the recalculation looks it over: cells, and its readers worked out from each text. */
function looked(index: FormulaIndex) {
  const readers = readersOf(index, (cell) => (cell.precedents ??= precedentsOf(cell.text, SHEET, new Set())));
  return {
    cells: index.cells.map(({ row, column, text }) => ({ row, column, text })),
    byTab: [...readers.byTab]
      .map(([tab, bands]) => [
        tab,
        bands.map(({ left, right, pool }) => [`${left}:${right}`, pool.intervals()]).sort(),
      ])
      .sort(),
    always: readers.always,
    readsPlaces: readers.readsPlaces,
  };
}

/** The tab after deleting the sheet rows `deleted`, by the delete's own path. */
function afterDelete(old: CellTab, deleted: number[]): CellTab {
  const rows = [...deleted].sort((a, b) => a - b);
  const map = new RowMap(rows);
  const shift = (text: string) => shiftFormula(text, { sheetName: 'T', onSameSheet: true, rows: map });
  const changes: SheetRowChanges = {
    updated: [],
    deleted: rows,
    cleared: [],
    appended: [],
    newHeader: false,
  };
  const after = tabAfterSimpleWrite(old, changes, () => null, shift)?.();
  expect(after).toBeDefined();
  return after!;
}

describe('the formula index carried across a delete', () => {
  it('is the index a new version would be given, cells and readers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.option(fc.nat({ max: 8 }), { nil: undefined }), { minLength: 40, maxLength: 40 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
        fc.nat({ max: 30 }),
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.nat(), { nil: undefined }),
        (rows, kinds, picks, far, headerFormula, lookedBefore, again) => {
          const formulas = new Map<number, string>();
          for (let r = 0; r < rows; r++) {
            const kind = kinds[r];
            if (kind !== undefined) formulas.set(r * WIDTH + 2, formulaOf(kind, r, rows, far));
          }
          if (formulas.size === 0) return;
          const header = new Map(headerFormula ? [[2, `COUNT(A2:A${rows + 1})`]] : []);
          const old = tabOf(rows, formulas, header);
          // The recalculation of an earlier write made the old version's index (and, mostly, its readers).
          const oldIndex = formulaIndex(old, SHEET);
          if (lookedBefore) looked(oldIndex);
          const once = afterDelete(old, [...new Set(picks.map((p) => 2 + (p % rows)))]);
          // A second delete before any recalculation looks the carried index over (readers still to make).
          const after =
            again !== undefined && once.typed.length > 1
              ? afterDelete(once, [2 + (again % once.typed.length)])
              : once;
          const carried = keptIndex(after!.formulas);
          if (after!.formulas.size === 0) return;
          // Carried, not made: the new version's map already has an index.
          expect(carried).toBeDefined();
          expect(formulaIndex(after!, SHEET)).toBe(carried);
          const made = formulaIndex(after!.withFormulaTexts(new Map(after!.formulas)), SHEET);
          expect(made).not.toBe(carried);
          expect(looked(carried!)).toEqual(looked(made));
        },
      ),
      { numRuns: 400 },
    );
  });
});
