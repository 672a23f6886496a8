// values.append: find the "table" the range points at and write below it.
// A table is a block of non-empty cells connected side by side (as Google's guide examples
// imply); the tables that touch the range are candidates and the last one (lowest, then
// rightmost) wins. No table: the data goes to the range's top-left. INSERT_ROWS first inserts
// as many rows as the data has, so what was below moves down instead of being overwritten.
import { formatRange, type GridRect } from './a1.ts';
import { isEmptyCell } from './cell.ts';
import type { Sheet } from './store.ts';

export function findTables(sheet: Sheet): GridRect[] {
  const filled = new Set<string>();
  for (const [r, c, cell] of sheet.grid.entries()) if (!isEmptyCell(cell)) filled.add(`${r}:${c}`);
  const seen = new Set<string>();
  const tables: GridRect[] = [];
  for (const start of filled) {
    if (seen.has(start)) continue;
    seen.add(start);
    const stack = [start];
    const [r0, c0] = start.split(':').map(Number) as [number, number];
    const rect = { startRow: r0, startCol: c0, endRow: r0, endCol: c0 };
    while (stack.length > 0) {
      const [r, c] = (stack.pop() as string).split(':').map(Number) as [number, number];
      rect.startRow = Math.min(rect.startRow, r);
      rect.endRow = Math.max(rect.endRow, r);
      rect.startCol = Math.min(rect.startCol, c);
      rect.endCol = Math.max(rect.endCol, c);
      for (const next of [`${r - 1}:${c}`, `${r + 1}:${c}`, `${r}:${c - 1}`, `${r}:${c + 1}`]) {
        if (filled.has(next) && !seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    tables.push(rect);
  }
  return tables;
}

const intersects = (a: GridRect, b: GridRect): boolean =>
  a.startRow <= b.endRow && b.startRow <= a.endRow && a.startCol <= b.endCol && b.startCol <= a.endCol;

/** The table the append lands under, if any. */
export function tableFor(sheet: Sheet, range: GridRect): GridRect | undefined {
  const candidates = findTables(sheet).filter((t) => intersects(t, range));
  candidates.sort((a, b) => a.endRow - b.endRow || a.startCol - b.startCol);
  return candidates.at(-1);
}

export function tableRangeText(sheet: Sheet, table: GridRect): string {
  return formatRange(sheet.title, table);
}
