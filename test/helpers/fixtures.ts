import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ExcelJS from 'exceljs';
import type { ConnectionRecord, Connections } from '../../server/repositories/connections.ts';

/**
 * A small workbook with every kind of value the API types: text, numbers with formats, dates, booleans,
 * empty cells, an empty row between data rows, a blank and a duplicate header, and a second tab with a
 * Unicode name and spaces.
 */
export async function writePeopleWorkbook(dir: string, fileName = 'people.xlsx'): Promise<string> {
  const file = path.join(dir, fileName);
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('People');
  ws.addRow(['Name', 'Age', 'Joined', 'Active', 'Balance', 'Code', '', 'Name']);
  ws.getRow(1).font = { bold: true };
  const rows: unknown[][] = [
    ['Ann', 31, new Date(Date.UTC(2024, 2, 1)), true, 1000, '007', 'x', 'first'],
    ['bob', 25, new Date(Date.UTC(2023, 11, 24, 9, 30)), false, 20.5, '010', null, null],
    ['Cid, Jr.', null, null, true, -3, 'A:1', null, 'has, comma'],
    [],
    ['item10', 40, new Date(Date.UTC(2022, 0, 5)), false, 0, 'item2', null, 'back\\slash'],
    ['item2', 40, null, null, 7, 'x', 'y', 'tab\there'],
  ];
  for (const r of rows) ws.addRow(r);
  ws.getColumn(3).numFmt = 'm/d/yyyy';
  ws.getColumn(5).numFmt = '"$"#,##0.00';
  const other = wb.addWorksheet('Café ☕ Tab');
  other.addRow(['Key', 'Value']);
  other.addRow(['a', 1]);
  await wb.xlsx.writeFile(file);
  return file;
}

export async function writeCsv(dir: string, fileName: string, text: string): Promise<string> {
  const file = path.join(dir, fileName);
  const { writeFile } = await import('node:fs/promises');
  await writeFile(file, text);
  return file;
}

export async function fileHash(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

/** `file` registered as a workbook connection named after it, as `sheetport connect <file>` registers it. */
export async function connectFile(
  connections: Pick<Connections, 'create'>,
  file: string,
): Promise<ConnectionRecord> {
  return await connections.create({
    name: path.basename(file),
    sourceKind: 'workbook',
    idPrefix: 'wb_',
    location: file,
  });
}
