/**
 * The grid of a tab's data cells (ooxml/cell-grid.ts), made in the cell list's own arrays when the cells allow
 * it: against a grid made cell by cell from a map, for lists in the file's row order with the header row, cells
 * left out, empty cells, whole rows missing, and for the orders it must leave to new arrays.
 */
import { describe, expect, it } from 'vitest';
import { Kind } from '../../../../server/sources/workbook/encoded-tab.ts';
import { cellGrid } from '../../../../server/sources/workbook/ooxml/cell-grid.ts';
import { CellList } from '../../../../server/sources/workbook/ooxml/cell-list.ts';

interface Cell {
  row: number;
  column: number;
  kind: number;
  value: number;
  code: number;
}

/** A seeded generator, so a failure names the case that failed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Cells in row order of a tab `rows` x `columns` from row `top`, each kept with probability `density`. */
function tabCells(seed: number, top: number, rows: number, columns: number, density: number): Cell[] {
  const next = random(seed);
  const cells: Cell[] = [];
  for (let row = top; row <= top + rows; row++)
    for (let column = 1; column <= columns; column++) {
      if (row > top && next() > density) continue;
      const kind = next() < 0.05 ? Kind.Empty : 1 + Math.floor(next() * 5);
      cells.push({ row, column, kind, value: Math.floor(next() * 1000) + 0.5, code: Math.floor(next() * 7) });
    }
  // The last data row always holds a cell, as the list's bottom says.
  cells.push({ row: top + rows + 1, column: columns, kind: Kind.Number, value: 7, code: 1 });
  return cells;
}

function listOf(cells: readonly Cell[], capacity: number): CellList {
  const list = new CellList(capacity);
  for (const c of cells) list.push(c.row, c.column, c.kind, c.value, c.code);
  return list;
}

/** The grid as a map of cells says it is. */
function expected(cells: readonly Cell[], top: number, rows: number, columns: number) {
  const size = rows * columns;
  const grid = { kinds: new Uint8Array(size), values: new Float64Array(size), codes: new Uint16Array(size) };
  for (const c of cells) {
    if (c.row === top || c.kind === Kind.Empty) continue;
    const at = (c.row - top - 1) * columns + c.column - 1;
    grid.kinds[at] = c.kind;
    grid.values[at] = c.value;
    grid.codes[at] = c.code;
  }
  return grid;
}

const plain = (grid: { kinds: Uint8Array; values: Float64Array; codes: Uint16Array }) => ({
  kinds: [...grid.kinds],
  values: [...grid.values],
  codes: [...grid.codes],
});

describe('the grid of a tab’s cells', () => {
  it('is the grid cell by cell, for tabs dense to sparse, made in the list’s arrays when they have room', () => {
    let madeInPlace = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed * 7919);
      const top = 1 + Math.floor(next() * 3);
      const rows = 1 + Math.floor(next() * 40);
      const columns = 1 + Math.floor(next() * 12);
      const density = [1, 0.98, 0.9, 0.5, 0.1][seed % 5] as number;
      const cells = tabCells(seed, top, rows, columns, density);
      const gridRows = rows + 1;
      const list = listOf(cells, gridRows * columns);
      const grid = cellGrid(list, top, gridRows, columns);
      if (grid.values.buffer === list.values.buffer) madeInPlace++;
      expect(plain(grid), `seed ${seed}`).toEqual(plain(expected(cells, top, gridRows, columns)));
    }
    expect(madeInPlace).toBeGreaterThan(200);
  });

  it('makes new arrays for cells out of order or listed twice, and for a list far longer than the grid', () => {
    const cells = tabCells(5, 1, 30, 6, 0.9);
    const rows = 31;
    const columns = 6;
    const swapped = [...cells];
    [swapped[10], swapped[20]] = [swapped[20] as Cell, swapped[10] as Cell];
    const twice = [...cells.slice(0, 15), cells[14] as Cell, ...cells.slice(15)];
    for (const [what, listed, capacity] of [
      ['out of order', swapped, rows * columns],
      ['a cell twice', twice, rows * columns],
      ['a long list', cells, rows * columns * 4 + 8192],
    ] as const) {
      const list = listOf(listed, capacity);
      const grid = cellGrid(list, 1, rows, columns);
      expect(grid.values.buffer, what).not.toBe(list.values.buffer);
      expect(plain(grid), what).toEqual(plain(expected(listed, 1, rows, columns)));
    }
  });
});
