/**
 * ooxml/new-workbook.ts, the package SheetPort writes from scratch (the demo's): every value kind reads back
 * the same through the engine, openpyxl and ExcelJS; styles, widths and frozen rows are what openpyxl sees; every
 * XML part is well-formed; the bytes are the same for the same input; and what Excel would refuse is refused.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { SaxesParser } from 'saxes';
import { afterAll, describe, expect, it } from 'vitest';
import { type NewTab, newWorkbook } from '../../../../server/sources/workbook/ooxml/new-workbook.ts';
import { OoxmlDocument } from '../../../../server/sources/workbook/ooxml/ooxml-document.ts';
import { ZipArchive } from '../../../../server/sources/workbook/ooxml/zip-archive.ts';
import { readWithOpenpyxl } from '../../../helpers/openpyxl.ts';
import { removeTempDirs, tempDir } from '../helpers.ts';

afterAll(removeTempDirs);

const ODD = [
  '  spaces around  ',
  'a & b < c > "d"',
  'literal _x0041_',
  'ctrl \u0001 char',
  'Zoë 😀',
  'line\nbreak',
];

const PEOPLE: NewTab = {
  name: 'People & Co',
  columns: [
    { width: 20 },
    { width: 9, style: { numFmt: '0.00' } },
    { style: { numFmt: 'd mmm yyyy' } },
    {},
    { width: 14, style: { numFmt: '"$"#,##0.00' } },
  ],
  headerStyle: { bold: true, color: 'FFFFFFFF', fill: 'FF2F5597', verticalAlign: 'center' },
  frozenRows: 1,
  rows: [
    ['Name', 'Score', 'Joined', 'Active', 'Total'],
    ['Ann', 1.5, new Date(Date.UTC(2024, 2, 1)), true, { formula: 'B2*2', result: 3 }],
    ['Bob', -2, null, false, { formula: 'IF(D3,"yes","no")', result: 'no' }],
    [],
    ['Cid', 0, new Date(Date.UTC(2023, 11, 24, 9, 30)), undefined, { formula: 'D5', result: true }],
    ...ODD.map((text) => [text]),
  ],
};

const PLAIN: NewTab = {
  name: 'Plain',
  rows: [
    ['When', 'N'],
    [new Date(Date.UTC(2024, 0, 2)), 7],
  ],
};

async function written(name: string, tabs: NewTab[]): Promise<string> {
  const file = path.join(await tempDir(), name);
  await fs.writeFile(
    file,
    newWorkbook({ tabs, creator: 'SheetPort', created: new Date(Date.UTC(2024, 0, 1)) }),
  );
  return file;
}

describe('newWorkbook', () => {
  it('writes every value kind so that the engine reads it back typed and formatted', async () => {
    const doc = await OoxmlDocument.parse(newWorkbook({ tabs: [PEOPLE, PLAIN] }));
    const [people, plain] = doc.tabs();
    expect(people?.name).toBe('People & Co');
    expect(people?.header).toEqual(['Name', 'Score', 'Joined', 'Active', 'Total']);
    expect(people?.typed.slice(0, 4)).toEqual([
      ['Ann', 1.5, '2024-03-01', true, 3],
      ['Bob', -2, null, false, 'no'],
      [null, null, null, null, null],
      ['Cid', 0, '2023-12-24T09:30:00', null, true],
    ]);
    expect(people?.formatted[0]).toEqual(['Ann', '1.50', '1 Mar 2024', 'TRUE', '$3.00']);
    expect(people?.typed.slice(4).map((r) => r[0])).toEqual(ODD);
    // A date in a column without a format gets a date format, so it stays a date.
    expect(plain?.typed).toEqual([['2024-01-02', 7]]);
  });

  it('is a package openpyxl and ExcelJS read the same way, styles, widths and frozen header included', async () => {
    const file = await written('people.xlsx', [PEOPLE, PLAIN]);
    const [people, plain] = (await readWithOpenpyxl(file)).sheets;
    expect(people?.name).toBe('People & Co');
    expect(people?.freeze).toBe('A2');
    expect(plain?.freeze).toBeNull();
    expect(people?.widths).toMatchObject({ A: 20, B: 9, E: 14 });
    expect(people?.cells.A1).toMatchObject({ value: 'Name', bold: true, fill: 'FF2F5597' });
    expect(people?.cells.B2).toMatchObject({ value: 1.5, numFmt: '0.00', bold: false });
    expect(people?.cells.C2).toMatchObject({ value: '2024-03-01T00:00:00', numFmt: 'd mmm yyyy' });
    expect(people?.cells.E2).toMatchObject({ value: '=B2*2', cached: 3, numFmt: '"$"#,##0.00' });
    expect(people?.cells.E3).toMatchObject({ value: '=IF(D3,"yes","no")', cached: 'no' });
    expect(people?.cells.D3).toMatchObject({ value: false, type: 'b' });
    expect(people?.cells.A6?.value).toBe(ODD[0]);
    expect(people?.cells.A7?.value).toBe(ODD[1]);
    expect(plain?.cells.A2).toMatchObject({ value: '2024-01-02T00:00:00', numFmt: 'yyyy-mm-dd' });

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(file);
    expect(wb.worksheets.map((ws) => ws.name)).toEqual(['People & Co', 'Plain']);
    expect(wb.creator).toBe('SheetPort');
    const ws = wb.getWorksheet('People & Co');
    expect(ws?.getCell('E2').value).toEqual({ formula: 'B2*2', result: 3 });
    expect(ws?.getCell('A7').value).toBe(ODD[1]);
  });

  it('writes well-formed XML parts, the same bytes for the same input', () => {
    const bytes = newWorkbook({ tabs: [PEOPLE, PLAIN], created: new Date(Date.UTC(2024, 0, 1)) });
    expect(
      Buffer.from(newWorkbook({ tabs: [PEOPLE, PLAIN], created: new Date(Date.UTC(2024, 0, 1)) })),
    ).toEqual(Buffer.from(bytes));
    const zip = ZipArchive.open(bytes);
    expect(zip.entries.map((e) => e.name).sort()).toEqual([
      '[Content_Types].xml',
      '_rels/.rels',
      'docProps/core.xml',
      'xl/_rels/workbook.xml.rels',
      'xl/sharedStrings.xml',
      'xl/styles.xml',
      'xl/workbook.xml',
      'xl/worksheets/sheet1.xml',
      'xl/worksheets/sheet2.xml',
    ]);
    for (const entry of zip.entries) {
      expect(() => new SaxesParser().write(zip.text(entry.name) ?? '').close(), entry.name).not.toThrow();
    }
  });

  it('refuses what Excel would not open', () => {
    const tab = (name: string): NewTab => ({ name, rows: [['a']] });
    expect(() => newWorkbook({ tabs: [] })).toThrow(/at least one tab/);
    expect(() => newWorkbook({ tabs: [tab('a/b')] })).toThrow(/tab name/);
    expect(() => newWorkbook({ tabs: [tab('x'.repeat(32))] })).toThrow(/tab name/);
    expect(() => newWorkbook({ tabs: [tab('Same'), tab('same')] })).toThrow(/Two tabs/);
    expect(() => newWorkbook({ tabs: [{ name: 'N', rows: [[Number.NaN]] }] })).toThrow(/cannot hold NaN/);
  });
});
