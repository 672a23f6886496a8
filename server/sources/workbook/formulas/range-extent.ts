/**
 * A range's size as written where the evaluator read fewer cells: a range reaching past the sheet's last row or
 * column (`A:A`, `A2:A1000` over 300 rows) is read only down to its cells (a whole column would be a million
 * rows), and the rest, blank, is remembered here. Excel counts those blank cells: `COUNTIF(A:A,"")` is a million
 * less what the column holds, `COUNTIFS(Data!A:A,...,Other!A:A,...)` compares ranges of the same size however
 * far each tab goes, and `SUMPRODUCT((A:A>5)*B:B)` pairs cells by place. What reads cell by cell takes the cells
 * past a grid's end, within its extent, as blank.
 */

export interface Extent {
  rows: number;
  columns: number;
}

const extents = new WeakMap<object, Extent>();

/** Marks `grid` as standing for `extent` (a larger range read as far as its cells go). */
export function withExtent<T extends readonly (readonly unknown[])[]>(grid: T, extent: Extent): T {
  if (extent.rows > grid.length || extent.columns > (grid[0]?.length ?? 0)) extents.set(grid, extent);
  return grid;
}

/** The size `grid` stands for: its own, or the range it was read from. */
export function extentOf(grid: readonly (readonly unknown[])[]): Extent {
  return extents.get(grid) ?? { rows: grid.length, columns: grid[0]?.length ?? 0 };
}

/** Whether two grids stand for ranges (or arrays) of one size. */
export function sameExtent(a: readonly (readonly unknown[])[], b: readonly (readonly unknown[])[]): boolean {
  const x = extentOf(a);
  const y = extentOf(b);
  return x.rows === y.rows && x.columns === y.columns;
}

/** The cell at (r, c), blank (null) past the grid's end within its extent. */
export function cellOf(grid: readonly (readonly unknown[])[], r: number, c: number): unknown {
  return grid[r]?.[c] ?? null;
}

/** How many of the cells `grid` stands for were never read (all blank). */
export function unreadCells(grid: readonly (readonly unknown[])[]): number {
  const { rows, columns } = extentOf(grid);
  return rows * columns - grid.length * (grid[0]?.length ?? 0);
}
