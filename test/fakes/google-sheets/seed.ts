// --seed book.xlsx: a spreadsheet built from a workbook file — its tabs, values and cell types
// (numbers with their number format, text, booleans, dates as serial numbers, formulas with
// their cached results). Each tab gets at least the 1000 × 26 grid of a new Google sheet.
import { basename, extname } from 'node:path';
import ExcelJS from 'exceljs';
import type { Cell, NumberFormat } from './cell.ts';
import { recalculate } from './formula.ts';
import { serialFromUtc } from './serial-date.ts';
import { DEFAULT_COLUMNS, DEFAULT_ROWS, newSheet, SPREADSHEET_MIME, type Store } from './store.ts';

const DATE_PATTERN = /[dmyhs]/i;

function formatFor(numFmt: string | undefined, isDate: boolean): NumberFormat | undefined {
  if (isDate) {
    const pattern = numFmt && DATE_PATTERN.test(numFmt) ? numFmt : 'yyyy-mm-dd';
    const hasTime = /h|s/i.test(pattern);
    const hasDate = /[dy]/i.test(pattern);
    return { type: hasDate && hasTime ? 'DATE_TIME' : hasTime ? 'TIME' : 'DATE', pattern };
  }
  if (!numFmt || numFmt === 'General') return undefined;
  if (numFmt.includes('%')) return { type: 'PERCENT', pattern: numFmt };
  if (/[$€£¥]/.test(numFmt)) return { type: 'CURRENCY', pattern: numFmt };
  if (DATE_PATTERN.test(numFmt.replace(/"[^"]*"/g, ''))) return { type: 'DATE', pattern: numFmt };
  return { type: 'NUMBER', pattern: numFmt };
}

function plainCell(value: unknown, numFmt: string | undefined): Cell | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'number') {
    const format = formatFor(numFmt, false);
    return format ? { value: { kind: 'number', value }, format } : { value: { kind: 'number', value } };
  }
  if (typeof value === 'boolean') return { value: { kind: 'bool', value } };
  if (value instanceof Date)
    return {
      value: { kind: 'number', value: serialFromUtc(value.getTime()) },
      format: formatFor(numFmt, true) as NumberFormat,
    };
  if (typeof value === 'string') return { value: { kind: 'string', value } };
  if (typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (Array.isArray(v.richText))
      return {
        value: { kind: 'string', value: (v.richText as { text: string }[]).map((r) => r.text).join('') },
      };
    if (typeof v.text === 'string') return { value: { kind: 'string', value: v.text } };
    if (typeof v.error === 'string') return { value: { kind: 'error', value: v.error } };
  }
  return { value: { kind: 'string', value: String(value) } };
}

function toCell(cell: ExcelJS.Cell): Cell | undefined {
  const value = cell.value as unknown;
  if (value && typeof value === 'object' && 'formula' in (value as object)) {
    const { formula, result } = value as { formula: string; result?: unknown };
    const cached = plainCell(result, cell.numFmt) ?? { value: { kind: 'string', value: '' } };
    return { ...cached, formula: `=${formula}` };
  }
  return plainCell(value, cell.numFmt);
}

/** Creates the spreadsheet in the store; returns its id and title. */
export async function seedWorkbook(
  store: Store,
  file: string,
): Promise<{ id: string; title: string; tabs: string[] }> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  const title = basename(file, extname(file));
  const created = store.createFile(title, SPREADSHEET_MIME);
  const book = created.book as NonNullable<typeof created.book>;
  book.sheets = [];
  workbook.worksheets.forEach((ws, index) => {
    const sheet = newSheet({
      sheetId: index === 0 ? 0 : 1_000_000 + index * 7919,
      title: ws.name,
      index,
      rowCount: Math.max(DEFAULT_ROWS, ws.rowCount),
      columnCount: Math.max(DEFAULT_COLUMNS, ws.columnCount),
      ...(ws.state === 'hidden' || ws.state === 'veryHidden' ? { hidden: true } : {}),
    });
    ws.eachRow({ includeEmpty: false }, (row, rowNumber) => {
      row.eachCell({ includeEmpty: false }, (cell, colNumber) => {
        const converted = toCell(cell);
        if (converted) sheet.grid.set(rowNumber - 1, colNumber - 1, converted);
      });
    });
    book.sheets.push(sheet);
  });
  if (book.sheets.length === 0) book.sheets.push(newSheet({ sheetId: 0, title: 'Sheet1', index: 0 }));
  recalculate(book);
  return { id: created.id, title, tabs: book.sheets.map((s) => s.title) };
}
