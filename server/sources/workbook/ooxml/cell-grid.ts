/**
 * A tab's data cells, as scanned (cell-list.ts), placed into its dense grid: cell (r, c) of the data rows at
 * `r * columns + c`, empty where the file has no cell. The grid is made in the list's own arrays where the cells
 * allow it, not in new ones: fresh memory is paid for page by page as it is first written (at a million rows the
 * grid's 115 MB cost a third of a second of page faults, on the read's path to its first answer), while the
 * list's pages are already in.
 *
 * In place, each cell moves from its place in the list, `i`, to its place in the grid, `at`. Cells listed row by
 * row, as every writer lists them, have `at` rising with `i`; the header row's cells put each `at` below its `i`,
 * and the empty cells the file leaves out put later ones above it. Those at or below are moved first to last
 * (each overwrites only places read already), those at or above last to first (likewise), so it works when no
 * cell at or below comes after one above. Any other order (cells out of order, a cell listed twice), or a list
 * much longer than the grid (which its arrays would keep alive), gets new arrays, filled in the list's order.
 */
import { Kind } from '../encoded-tab.ts';
import type { CellList } from './cell-list.ts';

export interface CellGrid {
  kinds: Uint8Array;
  values: Float64Array;
  codes: Uint16Array;
}

/** How much longer than the grid the list's arrays may be for the grid to be made in them. */
const MAX_SPARE = 1.25;

/** The grid of `rows` data rows by `columns` below the header row `top`, from the cells listed. */
export function cellGrid(cells: CellList, top: number, rows: number, columns: number): CellGrid {
  const size = rows * columns;
  const split = inPlaceSplit(cells, top, columns, size);
  return split === null ? copied(cells, top, columns, size) : inPlace(cells, top, columns, size, split);
}

/** Where a cell of the data rows goes in the grid; -1 for the header row's cells and empty ones. */
function placeOf(cells: CellList, i: number, top: number, columns: number): number {
  const row = cells.rows[i] as number;
  if (row === top || cells.kinds[i] === Kind.Empty) return -1;
  return (row - top - 1) * columns + (cells.columns[i] as number) - 1;
}

/**
 * The first cell of those moved last to first (every data cell before it goes at or below its place in the
 * list, every one from it at or above), or null when the grid cannot be made in place.
 */
function inPlaceSplit(cells: CellList, top: number, columns: number, size: number): number | null {
  const room = cells.kinds.length;
  if (room < size || room > size * MAX_SPARE + 4096) return null;
  let previous = -1;
  let lastBelow = -1;
  let firstAbove = cells.length;
  for (let i = 0; i < cells.length; i++) {
    const at = placeOf(cells, i, top, columns);
    if (at < 0) continue;
    if (at <= previous) return null; // out of the grid's order
    previous = at;
    if (at < i) lastBelow = i;
    else if (at > i && firstAbove === cells.length) firstAbove = i;
  }
  return firstAbove > lastBelow ? lastBelow + 1 : null;
}

function inPlace(cells: CellList, top: number, columns: number, size: number, split: number): CellGrid {
  const { kinds, values, codes } = cells;
  const clear = (from: number, to: number) => {
    if (from >= to) return;
    kinds.fill(Kind.Empty, from, to);
    values.fill(0, from, to);
    codes.fill(0, from, to);
  };
  const move = (i: number, at: number) => {
    kinds[at] = kinds[i] as number;
    values[at] = values[i] as number;
    codes[at] = codes[i] as number;
  };
  // Last to first, from the split: each cell's place is at or above it, and what lies between it and the next
  // cell's place has been read.
  let above = size;
  for (let i = cells.length - 1; i >= split; i--) {
    const at = placeOf(cells, i, top, columns);
    if (at < 0) continue;
    move(i, at);
    clear(at + 1, above);
    above = at;
  }
  // First to last, before the split: each cell's place is at or below it, and so is the gap before it.
  let below = -1;
  for (let i = 0; i < split; i++) {
    const at = placeOf(cells, i, top, columns);
    if (at < 0) continue;
    move(i, at);
    clear(below + 1, at);
    below = at;
  }
  clear(below + 1, above);
  return { kinds: kinds.subarray(0, size), values: values.subarray(0, size), codes: codes.subarray(0, size) };
}

function copied(cells: CellList, top: number, columns: number, size: number): CellGrid {
  const grid = { kinds: new Uint8Array(size), values: new Float64Array(size), codes: new Uint16Array(size) };
  for (let i = 0; i < cells.length; i++) {
    const at = placeOf(cells, i, top, columns);
    if (at < 0) continue;
    grid.kinds[at] = cells.kinds[i] as number;
    grid.values[at] = cells.values[i] as number;
    grid.codes[at] = cells.codes[i] as number;
  }
  return grid;
}
