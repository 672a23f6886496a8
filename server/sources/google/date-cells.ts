/**
 * Which cells of a Google tab read as dates, and under which number format: what a write of ISO 8601 text
 * needs to store a date where dates are (sources/date-cells.ts), with the cell's format or its column's.
 */
import { nearestFilledRow } from '../date-cells.ts';
import type { TabSnapshot } from '../source.ts';
import type { GoogleNumberFormat } from './cells.ts';

/** Google's widest grid (column ZZZ). */
const MAX_COLUMNS = 18_278;

export class DateCells {
  readonly #numberFormats = new Map<number, GoogleNumberFormat>();

  /** 0-based grid row and column. */
  set(row: number, column: number, format: GoogleNumberFormat): void {
    this.#numberFormats.set(row * MAX_COLUMNS + column, format);
  }

  get(row: number, column: number): GoogleNumberFormat | undefined {
    return this.#numberFormats.get(row * MAX_COLUMNS + column);
  }

  /** The date format of data column `column` near data row `index` (0-based) of `tab`, or undefined. */
  ofColumn(tab: TabSnapshot, column: number, index: number): GoogleNumberFormat | undefined {
    if (this.#numberFormats.size === 0) return undefined;
    const row = nearestFilledRow(tab.typed, column, index);
    return row < 0 ? undefined : this.get(tab.headerRow + row, column);
  }
}
