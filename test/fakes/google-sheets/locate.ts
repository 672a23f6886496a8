// Finds the sheet and grid rectangle a client's range text refers to.
import { type CellBounds, cellName, type GridRect, parseRange, resolveBounds } from './a1.ts';
import { badRequest, unableToParseRange } from './errors.ts';
import type { Book, Sheet } from './store.ts';

export type Located = { sheet: Sheet; bounds: CellBounds; rect: GridRect; text: string };

export function findSheetByTitle(book: Book, title: string): Sheet | undefined {
  return (
    book.sheets.find((s) => s.title === title) ??
    book.sheets.find((s) => s.title.toLowerCase() === title.toLowerCase())
  );
}

export function firstVisibleSheet(book: Book): Sheet {
  const sorted = [...book.sheets].sort((a, b) => a.index - b.index);
  return (sorted.find((s) => !s.hidden) ?? sorted[0]) as Sheet;
}

export function locate(book: Book, text: string): Located {
  const parsed = parseRange(text, (title) => findSheetByTitle(book, title) !== undefined);
  const sheet =
    parsed.sheetTitle === undefined ? firstVisibleSheet(book) : findSheetByTitle(book, parsed.sheetTitle);
  if (!sheet) throw unableToParseRange(text);
  const { bounds } = parsed;
  const startRow = bounds.startRow ?? 0;
  const startCol = bounds.startCol ?? 0;
  if (startRow >= sheet.rowCount || startCol >= sheet.columnCount) {
    const ref =
      bounds.startRow === undefined
        ? cellName(0, startCol).replace(/\d+$/, '')
        : bounds.startCol === undefined
          ? String(startRow + 1)
          : cellName(startRow, startCol);
    throw badRequest(
      `Range (${sheet.title}!${ref}) exceeds grid limits. Max rows: ${sheet.rowCount}, max columns: ${sheet.columnCount}`,
    );
  }
  return { sheet, bounds, rect: resolveBounds(bounds, sheet.rowCount, sheet.columnCount), text };
}
