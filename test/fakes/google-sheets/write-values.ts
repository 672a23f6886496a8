// values.update / values.batchUpdate geometry: data starts at the range's top-left; a multi-cell
// range bounds the write, a single cell lets it run on (the grid grows to fit). `null` skips a
// cell (not counted), "" clears it (counted); the reported range is the box of written cells,
// the row/column counts are the distinct rows/columns actually written.
import { type CellBounds, columnToLetters, formatRange, type GridRect } from './a1.ts';
import { badRequest } from './errors.ts';
import { type InputOption, inputToCell, SKIP } from './input.ts';
import type { MajorDimension } from './read-values.ts';
import type { Sheet } from './store.ts';

export type UpdateCounts = {
  updatedRange: string;
  updatedRows: number;
  updatedColumns: number;
  updatedCells: number;
  rect: GridRect;
};

export function parseValues(body: Record<string, unknown>, field = 'values'): unknown[][] {
  const values = body.values;
  if (values === undefined || values === null) return [];
  if (!Array.isArray(values) || values.some((line) => line !== null && !Array.isArray(line)))
    throw badRequest(
      `Invalid value at '${field}' (type.googleapis.com/google.protobuf.ListValue), ${JSON.stringify(values)}`,
    );
  return values.map((line) => (line === null ? [] : (line as unknown[])));
}

const isSingleCell = (b: CellBounds): boolean =>
  b.startRow !== undefined && b.startRow === b.endRow && b.startCol !== undefined && b.startCol === b.endCol;

export function writeValues(
  sheet: Sheet,
  bounds: CellBounds,
  rangeText: string,
  lines: unknown[][],
  major: MajorDimension,
  option: InputOption,
): UpdateCounts {
  const originRow = bounds.startRow ?? 0;
  const originCol = bounds.startCol ?? 0;
  const bounded = !isSingleCell(bounds);
  let minRow = Infinity;
  let minCol = Infinity;
  let maxRow = -1;
  let maxCol = -1;
  let cells = 0;
  const rowsTouched = new Set<number>();
  const colsTouched = new Set<number>();
  const writes: [number, number, ReturnType<typeof inputToCell>][] = [];
  lines.forEach((line, o) => {
    line.forEach((input, i) => {
      const row = originRow + (major === 'ROWS' ? o : i);
      const col = originCol + (major === 'ROWS' ? i : o);
      const cell = inputToCell(input, option);
      if (cell === SKIP) return;
      if (bounded) checkWithin(bounds, rangeText, row, col);
      writes.push([row, col, cell]);
      cells += 1;
      rowsTouched.add(row);
      colsTouched.add(col);
      minRow = Math.min(minRow, row);
      minCol = Math.min(minCol, col);
      maxRow = Math.max(maxRow, row);
      maxCol = Math.max(maxCol, col);
    });
  });
  if (cells === 0) {
    const rect = { startRow: originRow, startCol: originCol, endRow: originRow, endCol: originCol };
    return {
      updatedRange: formatRange(sheet.title, rect),
      updatedRows: 0,
      updatedColumns: 0,
      updatedCells: 0,
      rect,
    };
  }
  // Writing past the grid's edge adds rows/columns, as the Sheets UI does when pasting.
  sheet.rowCount = Math.max(sheet.rowCount, maxRow + 1);
  sheet.columnCount = Math.max(sheet.columnCount, maxCol + 1);
  for (const [row, col, cell] of writes) sheet.grid.set(row, col, cell === SKIP ? undefined : cell);
  const rect = { startRow: minRow, startCol: minCol, endRow: maxRow, endCol: maxCol };
  return {
    updatedRange: formatRange(sheet.title, rect),
    updatedRows: rowsTouched.size,
    updatedColumns: colsTouched.size,
    updatedCells: cells,
    rect,
  };
}

function checkWithin(bounds: CellBounds, rangeText: string, row: number, col: number): void {
  const where = `Requested writing within range [${rangeText}], but tried writing`;
  if (row > (bounds.endRow ?? Number.POSITIVE_INFINITY)) throw badRequest(`${where} to row [${row + 1}]`);
  if (col > (bounds.endCol ?? Number.POSITIVE_INFINITY))
    throw badRequest(`${where} to column [${columnToLetters(col)}]`);
}
