/**
 * The workbook the fuzzer aims at, written by openpyxl (another program's file, not SheetPort's): `Orders`, the
 * tab every row request goes to, with text, number, boolean, date and empty cells; `Archive`, a tab no request
 * names, which must come out of the run byte for byte as it went in.
 */
import { readFile } from 'node:fs/promises';
import JSZip from 'jszip';
import { runPython } from '../helpers/openpyxl.ts';

export const ORDERS = 'Orders';
export const ARCHIVE = 'Archive';
export const ORDER_COLUMNS = ['Order ID', 'Customer', 'Qty', 'Total', 'Shipped', 'When', 'Note'] as const;
/** The column whose cells are dates (a number written there is a serial day). */
export const DATE_COLUMN = 'When';
export const ORDER_ROWS = 24;

const SCRIPT = `
import datetime, sys
import openpyxl
wb = openpyxl.Workbook()
ws = wb.active
ws.title = 'Orders'
ws.append(['Order ID', 'Customer', 'Qty', 'Total', 'Shipped', 'When', 'Note'])
for i in range(1, ${ORDER_ROWS} + 1):
    note = None if i % 5 == 0 else ('007' if i % 7 == 0 else 'n%d' % i)
    ws.append(['ORD-%04d' % i, ['Ada', 'Bo', 'Cy', 'Dee'][i % 4], i % 9, round(i * 12.5, 2), i % 2 == 0,
               datetime.date(2024, 1 + i % 12, 1 + i % 27), note])
for row in range(2, ${ORDER_ROWS} + 2):
    ws.cell(row=row, column=6).number_format = 'yyyy-mm-dd'
    ws.cell(row=row, column=4).number_format = '#,##0.00'
archive = wb.create_sheet('Archive')
archive.append(['Key', 'Value', 'Since'])
for i in range(1, 8):
    archive.append(['k%d' % i, i * 1.5, datetime.datetime(2020, 1, i, 9, 30)])
wb.save(sys.argv[1])
`;

export async function writeFuzzWorkbook(file: string): Promise<void> {
  await runPython(SCRIPT, [file]);
}

/** The bytes of a tab's sheet part inside the package (found through the workbook's relationships). */
export async function sheetPartBytes(file: string, tab: string): Promise<Buffer> {
  const zip = await JSZip.loadAsync(await readFile(file));
  const workbook = await zip.file('xl/workbook.xml')!.async('string');
  const rels = await zip.file('xl/_rels/workbook.xml.rels')!.async('string');
  const escaped = tab.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const rid = new RegExp(`<sheet [^>]*name="${escaped}"[^>]*r:id="([^"]+)"`).exec(workbook)?.[1];
  const target =
    new RegExp(`Id="${rid}"[^>]*Target="([^"]+)"`).exec(rels)?.[1] ??
    new RegExp(`Target="([^"]+)"[^>]*Id="${rid}"`).exec(rels)?.[1];
  if (!rid || !target) throw new Error(`no sheet part for ${tab}`);
  const part = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
  return Buffer.from(await zip.file(part)!.async('uint8array'));
}
