/**
 * A .csv file's one tab, built as the tab builder (tab.ts `buildTab`) builds any grid, but without a cell object
 * per field: the parse thread types each field once into flat arrays (`EncodedCsvTab`: moved between threads, not
 * copied; a text that repeats down a column is one string), and the service decodes them into the rows of typed
 * values a snapshot holds, on demand and behind the first answers (rows-on-demand.ts).
 *
 * The text a cell displays is the field's own text, which the typed value gives back in nearly every case
 * (`42`, `abc`, `true`); the few fields it does not (`1.50`, `1e3`, `TRUE`) keep their text beside their row
 * (`SHOWN`, keyed by the row itself, so a row shared by two versions of the tab keeps it too). `formatted` is
 * made on first use from both.
 */
import type { CellValue, RowsOnDemand, TabSnapshot } from '../source.ts';
import { CSV_SHEET_ID } from './csv-layout.ts';
import { DecodingRows, rowProperties } from './rows-on-demand.ts';
import { readCsvCell } from './values.ts';

export const Kind = { Empty: 0, Number: 1, Text: 2, True: 3, False: 4 } as const;

/** The data rows of a tab, typed, as the parse thread sends them. Row r's cells are `cellStart[r]..[r+1]`. */
export interface EncodedCsvTab {
  name: string;
  header: string[];
  headerTexts: string[];
  headerRow: number;
  rows: number;
  columns: number;
  cellStart: Float64Array;
  kinds: Uint8Array;
  /** The number, or the index in `strings` of a text. */
  values: Float64Array;
  strings: string[];
  /** Per column: its booleans show as `TRUE`/`FALSE` (the first one read did), not `true`/`false`. */
  upperBooleans: boolean[];
  /** Cells whose displayed text is not the one their value gives back (`1.50`), and that text. */
  shownAt: Float64Array;
  shownTexts: string[];
}

export function transferablesOfCsvTab(tab: EncodedCsvTab): ArrayBuffer[] {
  return [tab.cellStart.buffer, tab.kinds.buffer, tab.values.buffer, tab.shownAt.buffer] as ArrayBuffer[];
}

/** The displayed text of a typed value when it is the field's own text (booleans: as the column writes them). */
export function shownOf(value: CellValue, upper: boolean | undefined): string {
  if (value === null) return '';
  if (upper && typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return String(value);
}

/** A row's displayed texts as its values give them. */
function shownRow(row: readonly CellValue[], upper: readonly boolean[]): string[] {
  return row.map((value, c) => shownOf(value, upper[c]));
}

/** Rows whose displayed texts differ from their values' (`shownOf`): the displayed row. */
const SHOWN = new WeakMap<readonly CellValue[], string[]>();

export function emptyTab(name: string): EncodedCsvTab {
  return {
    name,
    header: [],
    headerTexts: [],
    headerRow: 0,
    rows: 0,
    columns: 0,
    cellStart: new Float64Array(1),
    kinds: new Uint8Array(0),
    values: new Float64Array(0),
    strings: [],
    upperBooleans: [],
    shownAt: new Float64Array(0),
    shownTexts: [],
  };
}

/** The tab the service keeps, from what the parse thread sent: its rows made on demand and behind (paced). */
export function decodeCsvTab(tab: EncodedCsvTab): CsvTab {
  return new CsvTab(
    tab,
    new DecodingRows({ rows: tab.rows, make: (r) => csvCellRow(tab, r), release: () => {} }),
  );
}

/** Data row `r` of the tab as the service's rows hold it (with the texts it shows where they differ). */
function csvCellRow(tab: EncodedCsvTab, r: number): CellValue[] {
  const { columns, cellStart, kinds, values, strings, shownAt, shownTexts, upperBooleans } = tab;
  const row: CellValue[] = new Array(columns).fill(null);
  const first = cellStart[r]!;
  const end = cellStart[r + 1]!;
  for (let at = first; at < end; at++) {
    switch (kinds[at]) {
      case Kind.Number:
        row[at - first] = values[at]!;
        break;
      case Kind.Text:
        row[at - first] = strings[values[at]!]!;
        break;
      case Kind.True:
        row[at - first] = true;
        break;
      case Kind.False:
        row[at - first] = false;
        break;
    }
  }
  let shown = firstAtOrAfter(shownAt, first);
  if (shown < shownAt.length && shownAt[shown]! < end) {
    const texts = shownRow(row, upperBooleans);
    for (; shown < shownAt.length && shownAt[shown]! < end; shown++)
      texts[shownAt[shown]! - first] = shownTexts[shown]!;
    SHOWN.set(row, texts);
  }
  return row;
}

/** The first index of ascending `list` whose value is `value` or more (its length if none). */
function firstAtOrAfter(list: Float64Array, value: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid]! < value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** A record's fields as a row of `tab`, as wide (the record's fields past it are empty). */
export function csvRow(fields: readonly string[], tab: CsvTab): CellValue[] {
  const columns = tab.header.length;
  const upper = tab.upperBooleans;
  const row: CellValue[] = new Array(columns).fill(null);
  let texts: string[] | null = null;
  for (let c = 0; c < columns && c < fields.length; c++) {
    const cell = readCsvCell(fields[c]!);
    if (!cell) continue;
    row[c] = cell.typed;
    if (cell.formatted !== shownOf(cell.typed, upper[c])) {
      texts ??= [];
      texts[c] = cell.formatted;
    }
  }
  if (texts) {
    const shown = shownRow(row, upper);
    texts.forEach((text, c) => {
      shown[c] = text;
    });
    SHOWN.set(row, shown);
  }
  return row;
}

/** Whether a row has no cell at all (the tab builder's blank row). */
export function isBlankRow(row: readonly CellValue[]): boolean {
  for (const value of row) if (value !== null) return false;
  return true;
}

/**
 * A CSV tab: reads as a plain TabSnapshot (its own enumerable fields are the snapshot's), with `formatted` made on
 * first use. Never changed: a write makes a new one, sharing the rows it did not touch.
 */
/** What a CsvTab's header holds, shared by its versions. */
interface CsvTabHead {
  name: string;
  header: string[];
  headerTexts: string[];
  headerRow: number;
  upperBooleans: boolean[];
}

export class CsvTab implements TabSnapshot {
  declare readonly sourceSheetId: string;
  declare readonly name: string;
  declare readonly header: string[];
  declare readonly headerRow: number;
  declare readonly typed: CellValue[][];
  declare readonly formatted: string[][];
  /** While the rows are still being made from the read's columns (tab-rows.ts). */
  declare readonly onDemand?: RowsOnDemand;
  /** The header record's displayed texts, one per column ('' for an empty cell). */
  declare readonly headerTexts: string[];
  /** Per column: its booleans show as `TRUE`/`FALSE`. */
  declare readonly upperBooleans: boolean[];
  readonly #head: CsvTabHead;

  constructor(head: CsvTabHead, typed: CellValue[][] | DecodingRows) {
    this.#head = head;
    let formatted: string[][] | null = null;
    const upper = head.upperBooleans;
    const { rows, properties } = rowProperties(typed);
    Object.defineProperties(this, {
      sourceSheetId: { value: CSV_SHEET_ID, enumerable: true },
      name: { value: head.name, enumerable: true },
      header: { value: head.header, enumerable: true },
      headerRow: { value: head.headerRow, enumerable: true },
      ...properties,
      formatted: {
        enumerable: true,
        get: () => {
          formatted ??= rows().map((row) => SHOWN.get(row) ?? shownRow(row, upper));
          return formatted;
        },
      },
      headerTexts: { value: head.headerTexts },
      upperBooleans: { value: upper },
    });
  }

  /** The same header over other rows. */
  withRows(typed: CellValue[][]): CsvTab {
    return new CsvTab(this.#head, typed);
  }
}
