/**
 * A range's size as written where the evaluator read fewer cells: a range reaching past the sheet's last row or
 * column (`A:A`, `A2:A1000` over 300 rows) is read only down to its cells (a whole column would be a million
 * rows), and the rest, blank, is remembered here. Excel counts those blank cells: `COUNTIF(A:A,"")` is a million
 * less what the column holds, `COUNTIFS(Data!A:A,...,Other!A:A,...)` compares ranges of the same size however
 * far each tab goes, and `SUMPRODUCT((A:A>5)*B:B)` pairs cells by place. What reads cell by cell takes the cells
 * past a grid's end, within its extent, as its fill: blank for a range, and for an array computed from ranges what
 * the computation makes of their fills (`A:A=""` is TRUE past the column's last row, so
 * `SUMPRODUCT((A:A="")*1)` counts those cells too).
 */

export interface Extent {
  rows: number;
  columns: number;
}

interface Beyond {
  extent: Extent;
  /** Every cell past the grid's own within its extent. */
  fill: unknown;
}

const beyond = new WeakMap<object, Beyond>();

/**
 * Marks `grid` as standing for `extent` (a larger range read as far as its cells go), every cell past its own
 * being `fill` (blank, null, for a range).
 */
export function withExtent<T extends readonly (readonly unknown[])[]>(
  grid: T,
  extent: Extent,
  fill: unknown = null,
): T {
  if (extent.rows > grid.length || extent.columns > (grid[0]?.length ?? 0))
    beyond.set(grid, { extent, fill });
  return grid;
}

/** The size `grid` stands for: its own, or the range it was read from. */
export function extentOf(grid: readonly (readonly unknown[])[]): Extent {
  return beyond.get(grid)?.extent ?? { rows: grid.length, columns: grid[0]?.length ?? 0 };
}

/** Whether `grid` stands for more cells than it holds. */
export const isExtended = (grid: readonly (readonly unknown[])[]): boolean => beyond.has(grid);

/** What every cell past `grid`'s own holds within its extent (blank when nothing else was said). */
export function fillOf(grid: readonly (readonly unknown[])[]): unknown {
  return beyond.get(grid)?.fill ?? null;
}

/** Whether two grids stand for ranges (or arrays) of one size. */
export function sameExtent(a: readonly (readonly unknown[])[], b: readonly (readonly unknown[])[]): boolean {
  const x = extentOf(a);
  const y = extentOf(b);
  return x.rows === y.rows && x.columns === y.columns;
}

/** The cell at (r, c): a blank cell is null, and past the grid's end within its extent the grid's fill. */
export function cellOf(grid: readonly (readonly unknown[])[], r: number, c: number): unknown {
  const line = grid[r];
  return line !== undefined && c < line.length ? (line[c] ?? null) : fillOf(grid);
}

/** How many of the cells `grid` stands for were never read (all blank). */
export function unreadCells(grid: readonly (readonly unknown[])[]): number {
  const { rows, columns } = extentOf(grid);
  return rows * columns - grid.length * (grid[0]?.length ?? 0);
}

/** Where a range begins on its tab: row and column, 1-based. */
export interface Origin {
  row: number;
  column: number;
}

const origins = new WeakMap<object, Origin>();

/** Marks `grid` as read from a range whose top-left cell is `origin` (or made cell by cell from such ranges). */
export function withOrigin<T extends object>(grid: T, origin: Origin | undefined): T {
  if (origin) origins.set(grid, origin);
  return grid;
}

/** Where the range `grid` was read from begins, if it was read from one. */
export const originOf = (grid: object): Origin | undefined => origins.get(grid);
