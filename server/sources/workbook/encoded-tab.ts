/**
 * A tab as the parse thread sends it to the service: flat typed arrays (moved between threads, not copied) and
 * one table of distinct strings, so a text that repeats down a column is one string in memory, and the copy
 * between threads costs the distinct strings only.
 */

import type { CellValue } from '../source.ts';

/** What a cell holds. Date: an ISO 8601 text (a number under a date format); Error: `#DIV/0!` and the like. */
export const Kind = { Empty: 0, Number: 1, Text: 2, Boolean: 3, Date: 4, Error: 5 } as const;

/** A tab as the parse thread sends it. Cell (r, c) of the data rows is at `r * columns + c`. */
export interface EncodedTab {
  sourceSheetId: string;
  name: string;
  header: string[];
  /** The header row's texts before they became unique names ('' for an empty cell). */
  headerTexts: string[];
  headerRow: number;
  rows: number;
  columns: number;
  kinds: Uint8Array;
  /** The number, the boolean (0/1), or the index in `strings` of a text, date or error. */
  values: Float64Array;
  strings: string[];
  /** Format codes (number-formats.ts), and the number formats they name. */
  codes: Uint16Array;
  numberFormats: string[];
  /** Shared string index -> index in `strings` (-1 for one the tab does not use). */
  sst: Int32Array;
  /** The formula cells of the data rows: their place (as in `kinds`) and their text without `=`. */
  formulaAt: Uint32Array;
  formulaTexts: string[];
  /** The header row's formulas: [column (0-based), text without `=`]. */
  headerFormulas?: [number, string][];
}

/** The buffers an EncodedTab can hand to another thread without copying them. */
export function transferablesOf(tab: EncodedTab): ArrayBuffer[] {
  return [
    tab.kinds.buffer,
    tab.values.buffer,
    tab.codes.buffer,
    tab.sst.buffer,
    tab.formulaAt.buffer,
  ] as ArrayBuffer[];
}

/** Data row `r` of the tab as the service's rows hold it. */
export function cellRow(tab: EncodedTab, r: number): CellValue[] {
  const { columns, kinds, values, strings } = tab;
  const row: CellValue[] = new Array(columns);
  const base = r * columns;
  for (let c = 0; c < columns; c++) {
    const at = base + c;
    switch (kinds[at]) {
      case Kind.Number:
        row[c] = values[at]!;
        break;
      case Kind.Text:
      case Kind.Date:
      case Kind.Error:
        row[c] = strings[values[at]!]!;
        break;
      case Kind.Boolean:
        row[c] = values[at] === 1;
        break;
      default:
        row[c] = null;
    }
  }
  return row;
}
