// values.get semantics: the echoed range covers the whole requested (clamped) range; values are
// trimmed of trailing empty cells per line and trailing empty lines; interior empty lines stay []
// and a fully empty range has no `values` key at all.
import { formatRange, type GridRect } from './a1.ts';
import { type DateTimeRender, renderCell, rendersEmpty, type ValueRender } from './render.ts';
import type { Sheet } from './store.ts';

export type MajorDimension = 'ROWS' | 'COLUMNS';

export type ValueRange = { range: string; majorDimension: MajorDimension; values?: unknown[][] };

export function parseMajorDimension(value: unknown): MajorDimension {
  return value === 'COLUMNS' ? 'COLUMNS' : 'ROWS';
}

export function readRect(
  sheet: Sheet,
  rect: GridRect,
  major: MajorDimension,
  render: ValueRender,
  dateTime: DateTimeRender,
): unknown[][] {
  const lines: unknown[][] = [];
  const outer = major === 'ROWS' ? [rect.startRow, rect.endRow] : [rect.startCol, rect.endCol];
  const inner = major === 'ROWS' ? [rect.startCol, rect.endCol] : [rect.startRow, rect.endRow];
  // Only lines and positions that hold cells matter; scan the sparse grid instead of the rectangle.
  const present = new Map<number, Map<number, unknown>>();
  for (const [r, c, cell] of sheet.grid.entries()) {
    if (r < rect.startRow || r > rect.endRow || c < rect.startCol || c > rect.endCol) continue;
    const value = renderCell(cell, render, dateTime);
    if (rendersEmpty(value)) continue;
    const [o, i] = major === 'ROWS' ? [r, c] : [c, r];
    let line = present.get(o);
    if (!line) {
      line = new Map();
      present.set(o, line);
    }
    line.set(i, value);
  }
  if (present.size === 0) return lines;
  const lastOuter = Math.max(...present.keys());
  for (let o = outer[0] as number; o <= lastOuter; o++) {
    const line = present.get(o);
    if (!line) {
      lines.push([]);
      continue;
    }
    const lastInner = Math.max(...line.keys());
    const values: unknown[] = [];
    for (let i = inner[0] as number; i <= lastInner; i++) values.push(line.get(i) ?? '');
    lines.push(values);
  }
  return lines;
}

export function valueRange(
  sheet: Sheet,
  rect: GridRect,
  major: MajorDimension,
  render: ValueRender,
  dateTime: DateTimeRender,
): ValueRange {
  const result: ValueRange = { range: formatRange(sheet.title, rect), majorDimension: major };
  const values = readRect(sheet, rect, major, render, dateTime);
  if (values.length > 0) result.values = values;
  return result;
}
