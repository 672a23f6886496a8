/**
 * Each data cell's format code (number-formats.ts) of a tab, cell (row, column) of a tab `width` columns wide.
 *
 * Most tabs give every row of a column the same number format (a date column, a price column, text), so the
 * codes are then held once per column: a million rows of ten columns keep 20 bytes instead of 20 MB, and a new
 * version of the tab after a delete or an append shares them instead of copying them (20 MB of fresh memory a
 * write, whose page faults alone held the service's thread for 60-90 ms on the 2-core VM). Any other tab keeps
 * one code per cell, row by row (`row * width + column`), as the parse thread sends them.
 */
export class FormatCodes {
  readonly width: number;
  /** One code per cell, row by row; null when every row has `#byColumn`. */
  readonly #cells: Uint16Array | null;
  /** Every row's codes, when all rows have the same; else null. */
  readonly #byColumn: Uint16Array | null;

  private constructor(width: number, cells: Uint16Array | null, byColumn: Uint16Array | null) {
    this.width = width;
    this.#cells = cells;
    this.#byColumn = byColumn;
  }

  /** Codes held one per cell as they are (`cells` is the new version's own, or shared with an old one). */
  static perCell(cells: Uint16Array, width: number): FormatCodes {
    return new FormatCodes(width, cells, null);
  }

  /** The same codes in every row. */
  static perColumn(codes: ArrayLike<number>, width: number): FormatCodes {
    const byColumn = new Uint16Array(width);
    for (let c = 0; c < width; c++) byColumn[c] = codes[c] ?? 0;
    return new FormatCodes(width, null, byColumn);
  }

  /**
   * `cells` (`rows` rows), held per column when every row has the first one's codes: one pass that stops at the
   * first difference, 12-16 ms for a tab of a million rows of ten columns that has none (once per read).
   */
  static of(cells: Uint16Array, width: number, rows: number): FormatCodes {
    if (width === 0 || rows === 0) return FormatCodes.perColumn([], width);
    const size = rows * width;
    for (let at = width, c = 0; at < size; at++) {
      if (cells[at] !== cells[c]) return FormatCodes.perCell(cells, width);
      if (++c === width) c = 0;
    }
    return FormatCodes.perColumn(cells.subarray(0, width), width);
  }

  at(row: number, column: number): number {
    const byColumn = this.#byColumn;
    if (byColumn) return byColumn[column] ?? 0;
    return this.#cells![row * this.width + column] ?? 0;
  }

  /** Every row's codes when all rows have the same, else null. */
  get byColumn(): Uint16Array | null {
    return this.#byColumn;
  }

  /** One code per cell, row by row, when held so; else null. */
  get cells(): Uint16Array | null {
    return this.#cells;
  }

  /** Whether a row with `codes` (by column) reads the same as every row here. */
  sameForEveryRow(codes: readonly number[]): boolean {
    const byColumn = this.#byColumn;
    if (!byColumn) return false;
    for (let c = 0; c < this.width; c++) if ((codes[c] ?? 0) !== byColumn[c]) return false;
    return true;
  }

  /** One code per cell for `rows` rows, a new array (what a write then changes): the first `held` rows' codes, the rest none. */
  perCellCopy(held: number, rows: number): Uint16Array {
    const out = new Uint16Array(rows * this.width);
    const byColumn = this.#byColumn;
    if (byColumn) for (let r = 0; r < Math.min(held, rows); r++) out.set(byColumn, r * this.width);
    else out.set(this.#cells!.subarray(0, Math.min(this.#cells!.length, held * this.width, out.length)));
    return out;
  }
}
