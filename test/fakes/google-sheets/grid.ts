// A sheet's cells: a sparse map keyed by 0-based (row, col), with the row/column shifts that
// insertDimension / deleteDimension / INSERT_ROWS need.
import type { Cell } from './cell.ts';

const key = (row: number, col: number): string => `${row}:${col}`;

export class Grid {
  private cells = new Map<string, Cell>();

  get(row: number, col: number): Cell | undefined {
    return this.cells.get(key(row, col));
  }

  set(row: number, col: number, cell: Cell | undefined): void {
    if (cell === undefined) this.cells.delete(key(row, col));
    else this.cells.set(key(row, col), cell);
  }

  *entries(): Generator<[number, number, Cell]> {
    for (const [k, cell] of this.cells) {
      const [r, c] = k.split(':').map(Number) as [number, number];
      yield [r, c, cell];
    }
  }

  /** Moves every cell at index >= `at` along `dimension` by `by` (negative deletes [at, at-by)). */
  shift(dimension: 'ROWS' | 'COLUMNS', at: number, by: number): void {
    const next = new Map<string, Cell>();
    for (const [r, c, cell] of this.entries()) {
      const index = dimension === 'ROWS' ? r : c;
      if (by < 0 && index >= at && index < at - by) continue;
      const moved = index >= at ? index + by : index;
      next.set(dimension === 'ROWS' ? key(moved, c) : key(r, moved), cell);
    }
    this.cells = next;
  }

  /** Drops cells that fall outside a shrunken grid. */
  crop(rowCount: number, columnCount: number): void {
    for (const [r, c] of this.entries()) if (r >= rowCount || c >= columnCount) this.cells.delete(key(r, c));
  }

  clone(): Grid {
    const copy = new Grid();
    for (const [k, cell] of this.cells) copy.cells.set(k, structuredClone(cell));
    return copy;
  }
}
