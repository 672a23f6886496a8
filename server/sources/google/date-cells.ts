/**
 * Which cells of a Google tab are formatted as dates, and under which number format: what a write of ISO 8601
 * text needs to store a date where dates are (sources/date-cells.ts), with the cell's format or its column's,
 * and which cells a write's numbers land in as dates (`DateTargets`, checked when the write is planned).
 */
import { type DateTargets, nearestFilledRow } from '../date-cells.ts';
import { GOOGLE_SHEETS } from '../serial-dates.ts';
import type { TabSnapshot } from '../source.ts';
import type { GoogleNumberFormat } from './cells.ts';

/** Google's widest grid (column ZZZ). */
const MAX_COLUMNS = 18_278;

export class DateCells {
  readonly #numberFormats = new Map<number, GoogleNumberFormat>();
  /** Cells formatted as dates that hold no number (empty, or text): they do not read as dates. */
  readonly #withoutNumber = new Set<number>();

  /** 0-based grid row and column; `holdsNumber`: the cell reads as a date. */
  set(row: number, column: number, format: GoogleNumberFormat, holdsNumber = true): void {
    const key = row * MAX_COLUMNS + column;
    this.#numberFormats.set(key, format);
    if (!holdsNumber) this.#withoutNumber.add(key);
  }

  /** The date format of a cell that reads as a date (a number under a date format). */
  get(row: number, column: number): GoogleNumberFormat | undefined {
    const key = row * MAX_COLUMNS + column;
    return this.#withoutNumber.has(key) ? undefined : this.#numberFormats.get(key);
  }

  /** Whether a cell is formatted as a date, whatever it holds: a number written there shows as a date. */
  formatted(row: number, column: number): boolean {
    return this.#numberFormats.has(row * MAX_COLUMNS + column);
  }

  /** The date format of data column `column` near data row `index` (0-based) of `tab`, or undefined. */
  ofColumn(tab: TabSnapshot, column: number, index: number): GoogleNumberFormat | undefined {
    if (this.#numberFormats.size === 0) return undefined;
    const row = nearestFilledRow(tab.typed, column, index);
    return row < 0 ? undefined : this.get(tab.headerRow + row, column);
  }

  /**
   * Where a write's numbers show as dates: an updated cell formatted as a date; an appended cell that lands on
   * one, or in a column of dates (the nearest value above is a date), as Google may give a new row the format
   * of the row above it.
   */
  targets(tab: TabSnapshot): DateTargets {
    const date = (dated: boolean) => (dated ? GOOGLE_SHEETS : undefined);
    // The first row below the data (0-based), where appended rows go; row 1 under a header an append writes.
    const end = tab.header.length === 0 ? 1 : tab.headerRow + tab.typed.length;
    return {
      updated: (row, column) => date(this.formatted(tab.headerRow + row - 1, column)),
      appended: () => (nth, column) =>
        date(this.formatted(end + nth, column) || this.ofColumn(tab, column, tab.typed.length) !== undefined),
    };
  }
}
