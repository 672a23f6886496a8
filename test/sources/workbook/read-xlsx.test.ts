import fs from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { writeOne } from '../../helpers/source-write.ts';
import { rejection, removeTempDirs, saveWorkbook, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

async function valuesWorkbook(): Promise<string> {
  const dir = await tempDir();
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Values');
  ws.addRow(['Kind', 'Value']);
  const rows: [string, ExcelJS.CellValue, string?][] = [
    ['number', 1000, '"$"#,##0.00'],
    ['percent', 0.25, '0%'],
    ['general', 1234.5],
    ['boolean', true],
    ['false', false],
    ['text', 'hello'],
    ['leading zeros', '007'],
    ['date', new Date(Date.UTC(2024, 2, 1)), 'm/d/yyyy'],
    ['datetime', new Date(Date.UTC(2024, 2, 1, 9, 30)), 'yyyy-mm-dd hh:mm'],
    ['datetime ms', new Date(Date.UTC(2024, 2, 1, 9, 30, 5, 250)), 'yyyy-mm-dd hh:mm:ss.000'],
    ['time', new Date(Date.UTC(1899, 11, 30, 9, 30)), 'hh:mm'],
    ['formula', { formula: 'B2*2', result: 2000 } as ExcelJS.CellValue, '#,##0'],
    ['formula text', { formula: 'UPPER(A2)', result: 'NUMBER' } as ExcelJS.CellValue],
    [
      'formula date',
      { formula: 'B9+1', result: new Date(Date.UTC(2024, 2, 2)) } as ExcelJS.CellValue,
      'yyyy-mm-dd',
    ],
    ['formula error', { formula: '1/0', result: { error: '#DIV/0!' } } as ExcelJS.CellValue],
    ['formula uncached', { formula: 'B2+1' } as ExcelJS.CellValue],
    ['rich text', { richText: [{ text: 'Bold', font: { bold: true } }, { text: ' and plain' }] }],
    ['error', { error: '#N/A' } as ExcelJS.CellValue],
    ['hyperlink', { text: 'SheetPort', hyperlink: 'https://example.com' }],
    ['empty', null],
  ];
  for (const [kind, value, numFmt] of rows) {
    const row = ws.addRow([kind, value]);
    if (numFmt) row.getCell(2).numFmt = numFmt;
  }
  ws.addRow(['last', 'x']); // keeps the "empty" row a middle row
  return saveWorkbook(wb, path.join(dir, 'values.xlsx'));
}

describe('reading .xlsx values', () => {
  it('types every kind of cell and renders what the sheet displays', async () => {
    const snap = await createWorkbookSource(await valuesWorkbook()).read();
    const tab = snap.tabs[0];
    const byKind = Object.fromEntries(
      (tab?.typed ?? []).map((row, i) => [row[0], { typed: row[1], formatted: tab?.formatted[i]?.[1] }]),
    );
    expect(byKind).toEqual({
      number: { typed: 1000, formatted: '$1,000.00' },
      percent: { typed: 0.25, formatted: '25%' },
      general: { typed: 1234.5, formatted: '1234.5' },
      boolean: { typed: true, formatted: 'TRUE' },
      false: { typed: false, formatted: 'FALSE' },
      text: { typed: 'hello', formatted: 'hello' },
      'leading zeros': { typed: '007', formatted: '007' },
      date: { typed: '2024-03-01', formatted: '3/1/2024' },
      datetime: { typed: '2024-03-01T09:30:00', formatted: '2024-03-01 09:30' },
      'datetime ms': { typed: '2024-03-01T09:30:05.250', formatted: '2024-03-01 09:30:05.250' },
      time: { typed: '09:30:00', formatted: '09:30' },
      formula: { typed: 2000, formatted: '2,000' },
      'formula text': { typed: 'NUMBER', formatted: 'NUMBER' },
      'formula date': { typed: '2024-03-02', formatted: '2024-03-02' },
      'formula error': { typed: '#DIV/0!', formatted: '#DIV/0!' },
      // No cached result in the file: computed (B2 is the number 1000 above).
      'formula uncached': { typed: 1001, formatted: '1001' },
      'rich text': { typed: 'Bold and plain', formatted: 'Bold and plain' },
      error: { typed: '#N/A', formatted: '#N/A' },
      hyperlink: { typed: 'SheetPort', formatted: 'SheetPort' },
      empty: { typed: null, formatted: '' },
      last: { typed: 'x', formatted: 'x' },
    });
  });

  it('reads boolean formula results and merged cells (value on the anchor only)', async () => {
    const dir = await tempDir();
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('S');
    ws.addRow(['A', 'B', 'C']);
    ws.addRow([{ formula: '1=1', result: true } as ExcelJS.CellValue, 'merged', null]);
    ws.mergeCells('B2:C2');
    const file = await saveWorkbook(wb, path.join(dir, 'm.xlsx'));
    const [tab] = (await createWorkbookSource(file).read()).tabs;
    expect(tab?.typed).toEqual([[true, 'merged', null]]);
  });

  it('lists every worksheet with its sheetId, the file name as title, and a stat version', async () => {
    const dir = await tempDir();
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('One').addRow(['a']);
    const gone = wb.addWorksheet('Two');
    wb.addWorksheet('Three ☕').addRow(['c']);
    wb.removeWorksheet(gone.id);
    const file = await saveWorkbook(wb, path.join(dir, 'Tabs.XLSX'));
    const source = createWorkbookSource(file);
    const snap = await source.read();
    expect(snap.title).toBe('Tabs.XLSX');
    expect(snap.tabs.map((t) => [t.sourceSheetId, t.name])).toEqual([
      ['1', 'One'],
      ['3', 'Three ☕'],
    ]);
    const st = await fs.stat(file);
    expect(await source.version()).toBe(`${st.mtimeMs}:${st.size}:${st.ino}`);
    expect(snap.version).toBe(await source.version());
    await source.close();
  });

  it('rejects unsupported extensions and reports missing and corrupt files without paths', async () => {
    const dir = await tempDir();
    expect(() => createWorkbookSource(path.join(dir, 'a.ods'))).toThrow(
      expect.objectContaining({ code: 'unsupported_media_type', details: { parameter: 'location' } }),
    );

    const missing = createWorkbookSource(path.join(dir, 'missing.xlsx'));
    expect((await rejection(missing.version())).code).toBe('spreadsheet_not_found');
    const notFound = await rejection(missing.read());
    expect(notFound.code).toBe('spreadsheet_not_found');
    expect(notFound.message).not.toContain(dir);

    const corruptFile = path.join(dir, 'corrupt.xlsx');
    await fs.writeFile(corruptFile, 'this is not a zip file');
    const corrupt = createWorkbookSource(corruptFile);
    const error = await rejection(corrupt.read());
    expect(error.code).toBe('upstream_error');
    expect(error.status).toBe(502);
    expect(error.details.reason).toBe('not_a_workbook');
    expect(error.message).toMatch(/^"corrupt.xlsx" is not an Excel workbook/);
    expect(error.message).not.toContain(dir);
    // and writing to it fails the same way, leaving it alone
    const writeError = await rejection(
      writeOne(corrupt, '1', [{ op: 'append', values: { a: 1 } }], {
        allowFormulas: false,
        userEntered: false,
      }),
    );
    expect(writeError.code).toBe('upstream_error');
    expect(await fs.readFile(corruptFile, 'utf8')).toBe('this is not a zip file');
  });

  it('reads a 5,000-row tab', async () => {
    const dir = await tempDir();
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Big');
    ws.addRow(['ID', 'Name', 'Qty', 'Price', 'Date', 'Flag', 'Note', 'Total']);
    for (let i = 1; i <= 5000; i++) {
      ws.addRow([
        `ID-${i}`,
        `Name ${i}`,
        i % 100,
        i * 1.25,
        new Date(Date.UTC(2024, 0, 1 + (i % 365))),
        i % 2 === 0,
        i % 5 ? null : 'n',
        i * 2,
      ]);
    }
    ws.getColumn(4).numFmt = '"$"#,##0.00';
    ws.getColumn(5).numFmt = 'yyyy-mm-dd';
    const file = await saveWorkbook(wb, path.join(dir, 'big.xlsx'));
    const started = performance.now();
    const snap = await createWorkbookSource(file).read();
    const ms = performance.now() - started;
    expect(snap.tabs[0]?.typed.length).toBe(5000);
    expect(snap.tabs[0]?.formatted[4999]?.[3]).toBe('$6,250.00');
    console.info(`read 5,000 x 8 .xlsx: ${ms.toFixed(0)} ms`);
  });
});
