import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import type { AppError } from '../../../server/errors.ts';
import type { WriteOptions } from '../../../server/sources/source.ts';
import { OoxmlDocument } from '../../../server/sources/workbook/ooxml/ooxml-document.ts';

export const PLAIN: WriteOptions = { allowFormulas: false, userEntered: false };

const dirs: string[] = [];

export async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sheetport-workbook-'));
  dirs.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  for (const dir of dirs.splice(0)) {
    await fs.chmod(dir, 0o755).catch(() => {});
    await fs.rm(dir, { recursive: true, force: true });
  }
}

export async function saveWorkbook(wb: ExcelJS.Workbook, file: string): Promise<string> {
  await wb.xlsx.writeFile(file);
  return file;
}

export async function loadWorkbook(file: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  return wb;
}

export async function sha(file: string): Promise<string> {
  return createHash('sha256')
    .update(await fs.readFile(file))
    .digest('hex');
}

/** A cold parse of the file by the engine the service uses, bypassing the source's cache. */
export async function coldRead(file: string) {
  return (await OoxmlDocument.parse(await fs.readFile(file))).tabs();
}

/** The AppError a promise rejects with (fails the test if it resolves). */
export async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected the promise to reject');
}

/** Make the next save visibly newer even on coarse-mtime file systems. */
export async function bumpMtime(file: string, seconds = 5): Promise<void> {
  const st = await fs.stat(file);
  const t = new Date(st.mtimeMs + seconds * 1000);
  await fs.utimes(file, t, t);
}

/**
 * An orders-like tab: bold filled header, currency and date formats, a formula column, a note merged over
 * rows 4-5, set column widths, plus a second tab whose formulas reference the first.
 */
export async function writeStyledWorkbook(file: string, rows = 5): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Orders');
  ws.addRow(['Order', 'Qty', 'Price', 'Total', 'Date', 'Note']);
  for (let i = 1; i <= rows; i++) {
    const r = i + 1;
    ws.addRow([
      `O-${i}`,
      i,
      i * 10,
      { formula: `B${r}*C${r}`, result: i * i * 10 },
      new Date(Date.UTC(2024, 0, i)),
      i % 2 ? 'odd' : null,
    ]);
  }
  ws.getRow(1).eachCell((c) => {
    c.font = { bold: true };
    c.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFFF00' } };
  });
  for (let r = 2; r <= rows + 1; r++) {
    ws.getCell(r, 3).numFmt = '"$"#,##0.00';
    ws.getCell(r, 4).numFmt = '"$"#,##0.00';
    ws.getCell(r, 5).numFmt = 'yyyy-mm-dd';
    ws.getCell(r, 1).fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFDDEEFF' } };
  }
  ws.getColumn(1).width = 18;
  ws.getColumn(6).width = 40;
  // A note merged over two rows (rows 4-5) inside the table.
  ws.mergeCells('F4:F5');
  const other = wb.addWorksheet('Summary');
  other.addRow(['Metric', 'Value']);
  other.addRow(['Total', { formula: `SUM(Orders!D2:D${rows + 1})`, result: 0 }]);
  other.addRow(['Last', { formula: `Orders!A${rows + 1}`, result: `O-${rows}` }]);
  other.getCell('A1').font = { italic: true };
  return saveWorkbook(wb, file);
}
