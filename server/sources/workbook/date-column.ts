/** Whether a column of a held tab holds dates (sources/date-cells.ts), for writes of ISO 8601 text. */
import { nearestFilledRow } from '../date-cells.ts';
import type { CellTab } from './cell-tab.ts';
import { FIRST_NUMBER_FORMAT } from './number-formats.ts';
import { isDateFormat } from './values.ts';

/** The number format of data column `column`'s dates near data row `index` (0-based), or undefined. */
export function columnDateFormat(tab: CellTab, column: number, index: number): string | undefined {
  const row = nearestFilledRow(tab.typed, column, index);
  if (row < 0 || typeof tab.typed[row]![column] !== 'string') return undefined;
  const code = tab.codes.at(row, column);
  if (code < FIRST_NUMBER_FORMAT) return undefined;
  const format = tab.numberFormats[code - FIRST_NUMBER_FORMAT];
  return isDateFormat(format) ? format : undefined;
}
