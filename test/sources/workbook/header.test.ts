import path from 'node:path';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { columnLetter, resolveHeader } from '../../../server/sources/header.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { removeTempDirs, saveWorkbook, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

describe('resolveHeader', () => {
  it('trims names, names blanks by column letter and suffixes duplicates', () => {
    expect(resolveHeader([' Name ', '', 'Age', 'Name', '  ', 'Name'])).toEqual([
      'Name',
      'B',
      'Age',
      'Name_2',
      'E',
      'Name_3',
    ]);
  });

  it('skips suffixes that already exist as real headers', () => {
    expect(resolveHeader(['Name', 'Name', 'Name_2'])).toEqual(['Name', 'Name_3', 'Name_2']);
    expect(resolveHeader(['Name_2', 'Name', 'Name'])).toEqual(['Name_2', 'Name', 'Name_3']);
  });

  it('handles a blank column whose letter is also a real header', () => {
    expect(resolveHeader(['B', ''])).toEqual(['B', 'B_2']);
  });

  it('gives what trying every suffix from _2 gives, for rows of repeated and suffix-like names', () => {
    /** The rule as first written: each repeat tries `_2`, `_3`... until one is free (quadratic in the repeats). */
    const byTryingEach = (raw: string[]) => {
      const base = raw.map((r, i) => (r.trim() === '' ? columnLetter(i + 1) : r.trim()));
      const real = new Set(base);
      const used = new Set<string>();
      return base.map((name) => {
        if (!used.has(name)) return used.add(name) && name;
        let k = 2;
        while (real.has(`${name}_${k}`) || used.has(`${name}_${k}`)) k++;
        used.add(`${name}_${k}`);
        return `${name}_${k}`;
      });
    };
    const name = fc.constantFrom('a', 'a_2', 'a_3', 'a_2_2', 'b', 'B', 'b_1', '', ' a ', 'A_2');
    fc.assert(
      fc.property(fc.array(name, { maxLength: 60 }), (raw) => {
        expect(resolveHeader(raw)).toEqual(byTryingEach(raw));
      }),
      { numRuns: 2000 },
    );
  });

  it("names a row of Excel's 16,384 equal headers at once, each with its own suffix", () => {
    const names = resolveHeader(new Array(16_384).fill('Name'));
    expect(names).toEqual(['Name', ...Array.from({ length: 16_383 }, (_, i) => `Name_${i + 2}`)]);
  });

  it('letters columns like a spreadsheet', () => {
    expect([1, 26, 27, 52, 702, 703, 16384].map(columnLetter)).toEqual([
      'A',
      'Z',
      'AA',
      'AZ',
      'ZZ',
      'AAA',
      'XFD',
    ]);
  });
});

describe('header and rows of an .xlsx tab', () => {
  it('finds the header on the first non-empty row and numbers rows from it', async () => {
    const dir = await tempDir();
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Data');
    ws.getCell('A1').style = { font: { bold: true } }; // styled but empty: not content
    ws.getRow(3).values = ['  Name ', null, 'Name', 'Age', 'Name_2', 'Name'];
    ws.getRow(4).values = ['Ann', 'x', 'a2', 31, 'n2', 'n3'];
    ws.getRow(6).values = ['Bob', null, null, 25, null, null, 'extra column'];
    ws.getRow(9).getCell(2).style = { numFmt: '0.00' }; // trailing styled-only row: not a row
    const file = await saveWorkbook(wb, path.join(dir, 'h.xlsx'));

    const snap = await createWorkbookSource(file).read();
    const [tab] = snap.tabs;
    expect(tab?.headerRow).toBe(3);
    expect(tab?.header).toEqual(['Name', 'B', 'Name_3', 'Age', 'Name_2', 'Name_4', 'G']);
    expect(tab?.typed).toEqual([
      ['Ann', 'x', 'a2', 31, 'n2', 'n3', null],
      [null, null, null, null, null, null, null], // empty middle row 5 is a row
      ['Bob', null, null, 25, null, null, 'extra column'],
    ]);
    expect(tab?.formatted[1]).toEqual(['', '', '', '', '', '', '']);
  });

  it('gives an empty tab no header and no rows', async () => {
    const dir = await tempDir();
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Empty').getCell('B2').style = { font: { italic: true } };
    const file = await saveWorkbook(wb, path.join(dir, 'e.xlsx'));
    const snap = await createWorkbookSource(file).read();
    expect(snap.tabs[0]).toEqual({
      sourceSheetId: '1',
      name: 'Empty',
      header: [],
      headerRow: 0,
      typed: [],
      formatted: [],
    });
  });

  it('uses the display text of non-text header cells', async () => {
    const dir = await tempDir();
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Data');
    ws.addRow([2024, new Date(Date.UTC(2024, 2, 1)), true]);
    ws.getCell('B1').numFmt = 'm/d/yyyy';
    ws.addRow([1, 2, 3]);
    const file = await saveWorkbook(wb, path.join(dir, 'n.xlsx'));
    const [tab] = (await createWorkbookSource(file).read()).tabs;
    expect(tab?.header).toEqual(['2024', '3/1/2024', 'TRUE']);
  });
});
