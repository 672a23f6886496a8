/**
 * The common writes (rows appended, updated or emptied leaving every formula where it was; rows deleted, the
 * formulas below them moved and shifted) give their tab's new version by copying runs (simple-write-tab.ts): exactly what the general
 * rule (edited-tab.ts) gives, rows, format codes, formulas and header, for any rows written, empty rows at the
 * end and gaps before an appended row included; anything else is left to the general rule.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sharedRows } from '../../../../server/lib/shared-rows.ts';
import type { CellValue } from '../../../../server/sources/source.ts';
import { CellTab, SharedStrings } from '../../../../server/sources/workbook/cell-tab.ts';
import { FormatCodes } from '../../../../server/sources/workbook/format-codes.ts';
import { shiftFormula } from '../../../../server/sources/workbook/formulas/formula-text.ts';
import { editedTab, type ReadRow } from '../../../../server/sources/workbook/ooxml/edited-tab.ts';
import type { SheetRowChanges } from '../../../../server/sources/workbook/ooxml/sheet-edit.ts';
import { tabAfterSimpleWrite } from '../../../../server/sources/workbook/ooxml/simple-write-tab.ts';
import { RowMap } from '../../../../server/sources/workbook/row-map.ts';

const cell = fc.constantFrom<CellValue>(null, null, 'a', 1, true);
const row = fc.array(cell, { minLength: 3, maxLength: 3 });

/** Every row's format codes alike (held per column, as a read holds them then), or one per cell. */
const PATTERN = [2, 0, 5];
type OldCodes = 'per cell' | 'per column' | 'all none';

function tab(
  typed: CellValue[][],
  headerRow: number,
  lastHeader: string,
  held: OldCodes = 'per cell',
  formulas?: ReadonlyMap<number, string>,
): CellTab {
  const codes =
    held === 'per cell'
      ? FormatCodes.perCell(
          new Uint16Array(typed.length * 3).map((_, i) => i % 7),
          3,
        )
      : FormatCodes.perColumn(held === 'per column' ? PATTERN : [0, 0, 0], 3);
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
    formulas,
  });
}

const sortedFormulas = (t: CellTab) => [...t.formulas].sort((a, b) => a[0] - b[0]);

const none: SheetRowChanges = { updated: [], deleted: [], cleared: [], appended: [], newHeader: false };
/** Each data cell's format code, row by row, however the tab holds them. */
const codesOf = (t: CellTab): number[] => t.typed.flatMap((_, r) => t.header.map((_, c) => t.codes.at(r, c)));
const plain = (t: CellTab) => ({ ...t, headerTexts: t.headerTexts, codes: codesOf(t) });
const rowCodes = (t: CellTab, index: number): number[] => t.header.map((_, c) => t.codes.at(index, c));

/** Both rules on the same write; the fast one may decline only where the rules say it must. */
function compare(old: CellTab, changes: SheetRowChanges, readRow: (row: number) => ReadRow | null): void {
  const fast = tabAfterSimpleWrite(old, changes, readRow)?.();
  const general = editedTab(old, changes, readRow);
  if (fast === undefined) {
    const mixed = changes.deleted.length > 0 && changes.updated.length + changes.appended.length > 0;
    expect(old.headerTexts[2] === '' || mixed).toBe(true);
    return;
  }
  expect(plain(fast)).toEqual(plain(general));
  // What the new version says it shares with the old (the diff of the change skips it) is the old's own rows.
  const { head, tail } = sharedRows(old.typed, fast.typed);
  for (let i = 0; i < head; i++) expect(fast.typed[i]).toBe(old.typed[i]);
  for (let j = 1; j <= tail; j++) expect(fast.typed.at(-j)).toBe(old.typed.at(-j));
}

describe('a common write', () => {
  it('gives the tab the general rule gives', () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom('c', ''),
        fc.constantFrom('delete', 'update', 'append', 'mixed'),
        fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
        fc.array(row, { minLength: 5, maxLength: 5 }),
        fc.constantFrom<OldCodes>('per cell', 'per column', 'all none'),
        fc.constantFrom('varied', 'the pattern', 'none'),
        (rows, headerRow, lastHeader, kind, picks, written, held, writtenCodes) => {
          // A read tab ends at its last row with a value.
          while (rows.length > 0 && rows.at(-1)!.every((v) => v === null)) rows.pop();
          if (rows.length === 0) return;
          const old = tab(rows, headerRow, lastHeader, held);
          const first = headerRow + 1;
          const inTab = [...new Set(picks.map((p) => first + (p % rows.length)))].sort((a, b) => a - b);
          const past = [...new Set(picks.map((p) => first + rows.length + (p % 3)))].sort((a, b) => a - b);
          const changes: SheetRowChanges =
            kind === 'delete'
              ? { ...none, deleted: inTab }
              : kind === 'update'
                ? { ...none, updated: inTab }
                : kind === 'append'
                  ? { ...none, appended: past }
                  : { ...none, updated: inTab, appended: past };
          // The written sheet: each written row reads back as one of the generated rows.
          const readRow = (sheetRow: number): ReadRow | null => {
            const values = written[sheetRow % written.length]!;
            const codes = values.map((_, c) =>
              writtenCodes === 'varied' ? (sheetRow + c) % 5 : writtenCodes === 'none' ? 0 : PATTERN[c]!,
            );
            return { values, codes, texts: [], formulas: [] };
          };
          compare(old, changes, readRow);
        },
      ),
      { numRuns: 800 },
    );
  });

  it("says which of its rows are the old version's own, above and below the rows written", () => {
    const rows: CellValue[][] = [
      [1, 'x', true],
      [2, 'y', false],
      [3, 'z', true],
      [4, 'w', false],
    ];
    const old = tab(rows, 1, 'c');
    const readRow = (sheetRow: number): ReadRow => ({
      values: [sheetRow, 'n', null],
      codes: [],
      texts: [],
      formulas: [],
    });
    const updated = tabAfterSimpleWrite(old, { ...none, updated: [4] }, readRow)!();
    expect(sharedRows(old.typed, updated.typed)).toEqual({ head: 2, tail: 1 });
    const deleted = tabAfterSimpleWrite(old, { ...none, deleted: [3, 4] }, readRow)!();
    expect(sharedRows(old.typed, deleted.typed)).toEqual({ head: 1, tail: 1 });
    const appended = tabAfterSimpleWrite(old, { ...none, appended: [6] }, readRow)!();
    expect(sharedRows(old.typed, appended.typed)).toEqual({ head: 4, tail: 0 });
    // Only about the version it was made from.
    expect(sharedRows(updated.typed, appended.typed)).toEqual({ head: 0, tail: 0 });
  });

  it('shares the format codes with the old version while the rows written keep theirs', () => {
    const old = tab(
      [
        [1, 'x', true],
        [2, 'y', false],
      ],
      1,
      'c',
    );
    const sameCodes = (sheetRow: number): ReadRow => ({
      values: [sheetRow * 10, 'new', null],
      codes: rowCodes(old, sheetRow - 2),
      texts: [],
      formulas: [],
    });
    const updated = tabAfterSimpleWrite(old, { ...none, updated: [3] }, sameCodes)!();
    expect(updated.codes).toBe(old.codes);
    expect(updated.typed[1]).toEqual([30, 'new', null]);
    expect(plain(updated)).toEqual(plain(editedTab(old, { ...none, updated: [3] }, sameCodes)));

    const newCode = (sheetRow: number): ReadRow => ({ ...sameCodes(sheetRow), codes: [9, 9, 9] });
    const reformatted = tabAfterSimpleWrite(old, { ...none, updated: [3] }, newCode)!();
    expect(reformatted.codes).not.toBe(old.codes);
    expect(codesOf(reformatted)).toEqual([...rowCodes(old, 0), 9, 9, 9]);
    expect(codesOf(old)).toEqual([0, 1, 2, 3, 4, 5]); // the old version is never changed
  });

  it('shares codes held per column through deletes, and appends whose rows have them', () => {
    const old = tab(
      [
        [1, 'x', true],
        [2, 'y', false],
        [3, 'z', true],
      ],
      1,
      'c',
      'per column',
    );
    const alike = (): ReadRow => ({ values: [7, 'p', true], codes: PATTERN, texts: [], formulas: [] });
    const deleted = tabAfterSimpleWrite(old, { ...none, deleted: [3] }, () => null)!();
    expect(deleted.codes).toBe(old.codes);
    const appended = tabAfterSimpleWrite(deleted, { ...none, appended: [4] }, alike)!();
    expect(appended.codes).toBe(old.codes);
    const unlike = (): ReadRow => ({ ...alike(), codes: [1, 1, 1] });
    const reformatted = tabAfterSimpleWrite(appended, { ...none, updated: [2] }, unlike)!();
    expect(reformatted.codes.byColumn).toBeNull();
    expect(codesOf(reformatted)).toEqual([1, 1, 1, ...PATTERN, ...PATTERN]);
    expect(codesOf(appended)).toEqual([...PATTERN, ...PATTERN, ...PATTERN]);
    // A gap up to an appended row reads as rows without codes: no longer alike.
    const gapped = tabAfterSimpleWrite(appended, { ...none, appended: [7] }, alike)!();
    expect(codesOf(gapped)).toEqual([...PATTERN, ...PATTERN, ...PATTERN, 0, 0, 0, 0, 0, 0, ...PATTERN]);
  });

  it('keeps every version as it was made while later ones append into the room of its format codes', () => {
    // Writes go to the latest version, or again to an earlier one (a write that failed is made again from the
    // version before it): whatever each version shares with the next, none ever sees another's codes change.
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            kind: fc.constantFrom('append', 'update', 'both'),
            from: fc.nat({ max: 3 }),
            pick: fc.nat(),
            code: fc.integer({ min: 0, max: 9 }),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        (writes) => {
          const versions: { tab: CellTab; codes: number[] }[] = [];
          const first = tab([[1, 'x', true]], 1, 'c');
          versions.push({ tab: first, codes: codesOf(first) });
          for (const { kind, from, pick, code } of writes) {
            const old = versions[Math.max(0, versions.length - 1 - from)]!.tab;
            const rows = old.typed.length;
            const updated = kind === 'append' ? [] : [2 + (pick % rows)];
            const appended = kind === 'update' ? [] : [2 + rows, 3 + rows].slice(0, 1 + (pick % 2));
            const changes: SheetRowChanges = { ...none, updated, appended };
            const readRow = (sheetRow: number): ReadRow => ({
              values: [sheetRow, 'r', false],
              codes: [code, (sheetRow + code) % 4, 1],
              texts: [],
              formulas: [],
            });
            const next = tabAfterSimpleWrite(old, changes, readRow)!();
            expect(plain(next)).toEqual(plain(editedTab(old, changes, readRow)));
            versions.push({ tab: next, codes: codesOf(next) });
          }
          for (const { tab: version, codes } of versions) expect(codesOf(version)).toEqual(codes);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads the rows written at the write and copies the old rows only when the version is made', () => {
    const old = tab(
      [
        [1, 'a', true],
        [2, 'b', false],
      ],
      1,
      'c',
    );
    let reads = 0;
    let value = 'first';
    const readRow = (sheetRow: number): ReadRow => {
      reads++;
      return { values: [sheetRow, value, null], codes: [], texts: [], formulas: [] };
    };
    const later = tabAfterSimpleWrite(old, { ...none, updated: [2], appended: [4] }, readRow)!;
    expect(reads).toBe(2);
    value = 'after'; // the sheet moved on (a later write of the batch): the version is the write's own
    const made = later();
    expect(reads).toBe(2);
    expect(made.typed).toEqual([
      [2, 'first', null],
      [2, 'b', false],
      [4, 'first', null],
    ]);
    expect(made.typed[1]).toBe(old.typed[1]);
    expect(old.typed).toEqual([
      [1, 'a', true],
      [2, 'b', false],
    ]);
  });

  it('gives a tab with formulas what the general rule gives, its map of formulas kept, while the write keeps them', () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 30 }),
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        fc.constantFrom('update', 'append', 'mixed'),
        fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
        fc.array(row, { minLength: 5, maxLength: 5 }),
        (rows, withTotal, kind, picks, written) => {
          while (rows.length > 0 && rows.at(-1)!.every((v) => v === null)) rows.pop();
          if (rows.length === 0) return;
          // Column C of some rows is a formula (a total column), as a read holds them: by data cell.
          const formulas = new Map<number, string>();
          rows.forEach((_, r) => {
            if (withTotal[r]) formulas.set(r * 3 + 2, `A${r + 2}*B${r + 2}`);
          });
          const old = tab(rows, 1, 'c', 'per cell', formulas);
          const inTab = [...new Set(picks.map((p) => 2 + (p % rows.length)))].sort((a, b) => a - b);
          const past = [...new Set(picks.map((p) => 2 + rows.length + (p % 3)))].sort((a, b) => a - b);
          const changes: SheetRowChanges =
            kind === 'update'
              ? { ...none, updated: inTab }
              : kind === 'append'
                ? { ...none, appended: past }
                : { ...none, updated: inTab, appended: past };
          // Each written row reads back with the formula its row had (none past the old rows).
          const readRow = (sheetRow: number): ReadRow => ({
            values: written[sheetRow % written.length]!,
            codes: [1, 2, 3],
            texts: [],
            formulas: [undefined, undefined, formulas.get((sheetRow - 2) * 3 + 2)],
          });
          const fast = tabAfterSimpleWrite(old, changes, readRow)?.();
          const general = editedTab(old, changes, readRow);
          expect(fast).toBeDefined();
          expect(plain(fast!)).toEqual(plain(general));
          expect(sortedFormulas(fast!)).toEqual(sortedFormulas(general));
          expect(fast!.withFormulas).toEqual(general.withFormulas);
          // Updates that leave every row: the very map (the recalculation's index is kept by it).
          if (kind === 'update' && fast!.typed.length === old.typed.length)
            expect(fast!.formulas).toBe(old.formulas);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives a tab with formulas what the general rule gives after deletes, its formulas moved and shifted', () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 30 }),
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (rows, withTotal, picks, headerFormula) => {
          while (rows.length > 0 && rows.at(-1)!.every((v) => v === null)) rows.pop();
          if (rows.length === 0) return;
          const formulas = new Map<number, string>();
          rows.forEach((_, r) => {
            if (withTotal[r]) formulas.set(r * 3 + 2, `A${r + 2}*B${r + 2}+SUM(A2:A${rows.length + 1})`);
          });
          const header = new Map(headerFormula ? [[2, 'COUNT(A2:A99)']] : []);
          const old = tab(rows, 1, 'c', 'per cell').withFormulaTexts(formulas, header);
          const deleted = [...new Set(picks.map((p) => 2 + (p % rows.length)))].sort((a, b) => a - b);
          const map = new RowMap(deleted);
          const shift = (text: string) =>
            shiftFormula(text, { sheetName: 'T', onSameSheet: true, rows: map });
          const changes: SheetRowChanges = { ...none, deleted };
          const fast = tabAfterSimpleWrite(old, changes, () => null, shift)?.();
          const general = editedTab(old, changes, () => null, shift);
          expect(fast).toBeDefined();
          expect(plain(fast!)).toEqual(plain(general));
          expect(sortedFormulas(fast!)).toEqual(sortedFormulas(general));
          expect([...fast!.headerFormulas]).toEqual([...general.headerFormulas]);
          expect(fast!.withFormulas).toEqual(general.withFormulas);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves a formula written or moved, a header or deletes mixed with edits to the general rule', () => {
    const old = tab([[1, 2, 3]], 1, 'c');
    const withFormula = (): ReadRow => ({ values: [1, 2, 3], codes: [], texts: [], formulas: ['A1'] });
    expect(tabAfterSimpleWrite(old, { ...none, appended: [3] }, withFormula)).toBeUndefined();
    // A row whose formula the write changed, and a delete that moves formulas below it.
    const total = tab([[1, 2, 2]], 1, 'c', 'per cell', new Map([[2, 'A2*B2']]));
    const otherFormula = (): ReadRow => ({
      values: [1, 2, 3],
      codes: [],
      texts: [],
      formulas: [undefined, undefined, 'A2+B2'],
    });
    expect(tabAfterSimpleWrite(total, { ...none, updated: [2] }, otherFormula)).toBeUndefined();
    const noFormula = (): ReadRow => ({ values: [1, 2, 3], codes: [], texts: [], formulas: [] });
    expect(tabAfterSimpleWrite(total, { ...none, updated: [2] }, noFormula)).toBeUndefined();
    // A delete on a tab with formulas, without the rule that shifts them.
    expect(tabAfterSimpleWrite(total, { ...none, deleted: [2] }, () => null)).toBeUndefined();
    expect(tabAfterSimpleWrite(old, { ...none, deleted: [2], updated: [2] }, () => null)).toBeUndefined();
    expect(tabAfterSimpleWrite(old, { ...none, header: true, updated: [2] }, () => null)).toBeUndefined();
    expect(tabAfterSimpleWrite(old, { ...none, deleted: [1] }, () => null)).toBeUndefined(); // the header row
  });
});
