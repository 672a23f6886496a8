/**
 * A .csv file's one tab, built as the tab builder (tab.ts `buildTab`) builds any grid, but without a cell object
 * per field: the parse thread types each field once into flat arrays (`EncodedCsvTab`: moved between threads, not
 * copied; a text that repeats down a column is one string), and the service decodes them into the rows of typed
 * values a snapshot holds.
 *
 * The text a cell displays is the field's own text, which the typed value gives back in nearly every case
 * (`42`, `abc`, `true`); the few fields it does not (`1.50`, `1e3`, `TRUE`) keep their text beside their row
 * (`SHOWN`, keyed by the row itself, so a row shared by two versions of the tab keeps it too). `formatted` is
 * made on first use from both.
 */
import { AppError } from '../../errors.ts';
import { resolveHeader } from '../header.ts';
import type { CellValue, TabSnapshot } from '../source.ts';
import { type GridLimits, GridTooLarge } from '../tab.ts';
import { CSV_SHEET_ID } from './csv-layout.ts';
import { readCsvCell } from './values.ts';

const Kind = { Empty: 0, Number: 1, Text: 2, True: 3, False: 4 } as const;

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
function shownOf(value: CellValue, upper: boolean | undefined): string {
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

/** A grown-as-needed typed array. */
class Growing<T extends Float64Array | Uint8Array> {
  array: T;
  length = 0;
  readonly #make: (size: number) => T;
  constructor(make: (size: number) => T) {
    this.#make = make;
    this.array = make(1 << 12);
  }
  push(value: number): void {
    if (this.length === this.array.length) {
      const bigger = this.#make(this.array.length * 2);
      bigger.set(this.array);
      this.array = bigger;
    }
    this.array[this.length++] = value;
  }
  done(): T {
    return this.array.subarray(0, this.length).slice() as T;
  }
}

/**
 * Builds a tab from records as they are scanned (`add`), with the tab builder's rules: the header is the first
 * record with a cell, trailing records without one are not rows, the width is the widest row, and the grid's
 * cells and text are refused past the limits, in the tab builder's words.
 */
/**
 * Builds a tab from records as they are scanned (`add`), with the tab builder's rules: the header is the first
 * record with a cell, trailing records without one are not rows, the width is the widest row, and the grid's
 * cells and text are refused past the limits, in the tab builder's words.
 */
export class CsvTabBuilder {
  readonly #name: string;
  readonly #limits: GridLimits | undefined;
  #records = 0;
  #headerIndex = -1;
  #lastIndex = -1;
  #columns = 0;
  #headerTexts: string[] = [];
  #text = 0;
  /** Once the outcome is a refusal, cells are no longer kept (the grid is still measured for the message). */
  #over = false;
  readonly #cellStart = new Growing((n) => new Float64Array(n));
  readonly #kinds = new Growing((n) => new Uint8Array(n));
  readonly #values = new Growing((n) => new Float64Array(n));
  readonly #shownAt = new Growing((n) => new Float64Array(n));
  readonly #shownTexts: string[] = [];
  readonly #strings: string[] = [];
  readonly #stringIds = new Map<string, number>();
  readonly #upper: boolean[] = [];
  /** The cells kept up to the last record with a cell (those of trailing blank records are dropped at the end). */
  #cellsAtLast = 0;

  constructor(name: string, limits: GridLimits | undefined) {
    this.#name = name;
    this.#limits = limits;
  }

  add(fields: string[]): void {
    const index = this.#records++;
    if (this.#headerIndex < 0) {
      const texts = fields.map((f) => readCsvCell(f)?.formatted ?? '');
      const used = usedWidth(texts);
      if (used === 0) return;
      this.#headerIndex = this.#lastIndex = index;
      this.#columns = used;
      this.#headerTexts = texts.slice(0, used);
      this.#cellStart.push(0);
      return;
    }
    let used = 0;
    const first = this.#kinds.length;
    for (let c = 0; c < fields.length; c++) {
      const cell = readCsvCell(fields[c]!);
      if (cell === null) {
        if (!this.#over) this.#push(Kind.Empty, 0);
        continue;
      }
      used = c + 1;
      const { typed, formatted } = cell;
      this.#text += formatted.length + (typeof typed === 'string' ? typed.length : 0);
      if (this.#over) continue;
      if (typeof typed === 'number') this.#push(Kind.Number, typed);
      else if (typeof typed === 'boolean') {
        this.#push(typed ? Kind.True : Kind.False, 0);
        this.#upper[c] ??= formatted === 'TRUE' || formatted === 'FALSE';
      } else this.#push(Kind.Text, this.#stringId(typed as string));
      if (formatted !== shownOf(typed, this.#upper[c])) {
        this.#shownAt.push(this.#kinds.length - 1);
        this.#shownTexts.push(formatted);
      }
    }
    if (!this.#over) {
      // Empty cells after the last used one are not kept: the row is padded when decoded.
      this.#kinds.length = first + used;
      this.#values.length = first + used;
      this.#cellStart.push(first + used);
    }
    if (used === 0) return;
    this.#lastIndex = index;
    this.#cellsAtLast = first + used;
    if (used > this.#columns) this.#columns = used;
    this.#checkGrowth();
  }

  #push(kind: number, value: number): void {
    this.#kinds.push(kind);
    this.#values.push(value);
  }

  #stringId(text: string): number {
    let id = this.#stringIds.get(text);
    if (id === undefined) {
      id = this.#strings.length;
      this.#strings.push(text);
      this.#stringIds.set(text, id);
    }
    return id;
  }

  /** Keeping cells is pointless once the tab is sure to be refused: it only costs memory. */
  #checkGrowth(): void {
    const limits = this.#limits;
    if (!limits || this.#over) return;
    const rows = this.#lastIndex - this.#headerIndex + 1;
    if (rows * this.#columns > limits.maxCells || this.#text > limits.maxTextChars) this.#over = true;
  }

  finish(): EncodedCsvTab {
    const name = this.#name;
    if (this.#headerIndex < 0) return emptyTab(name);
    const rows = this.#lastIndex - this.#headerIndex;
    const columns = this.#columns;
    const cells = (rows + 1) * columns;
    const limits = this.#limits;
    if (limits && cells > limits.maxCells) {
      throw new GridTooLarge(
        `has a tab ("${name}") of ${rows + 1} rows by ${columns} columns, ${cells} cells in all, over the limit of ${limits.maxCells} (SHEETPORT_MAX_CELLS).`,
      );
    }
    if (limits && this.#text > limits.maxTextChars) {
      throw new GridTooLarge(
        `holds more than ${limits.maxTextChars} characters of text once read, in its tab "${name}" (SHEETPORT_MAX_TEXT_MB).`,
      );
    }
    if (this.#over) throw new AppError('internal_error', 'The CSV tab was measured over its limits');
    const headerTexts = this.#headerTexts.concat(new Array(columns - this.#headerTexts.length).fill(''));
    const shownCount = countBelow(this.#shownAt, this.#cellsAtLast);
    return {
      name,
      header: resolveHeader(headerTexts),
      headerTexts,
      headerRow: this.#headerIndex + 1,
      rows,
      columns,
      cellStart: this.#cellStart.done().slice(0, rows + 1),
      kinds: this.#kinds.done().slice(0, this.#cellsAtLast),
      values: this.#values.done().slice(0, this.#cellsAtLast),
      strings: this.#strings,
      upperBooleans: Array.from({ length: columns }, (_, c) => this.#upper[c] === true),
      shownAt: this.#shownAt.done().slice(0, shownCount),
      shownTexts: this.#shownTexts.slice(0, shownCount),
    };
  }
}

function countBelow(list: Growing<Float64Array>, limit: number): number {
  let n = list.length;
  while (n > 0 && list.array[n - 1]! >= limit) n--;
  return n;
}

function usedWidth(texts: readonly string[]): number {
  for (let c = texts.length - 1; c >= 0; c--) if (texts[c] !== '') return c + 1;
  return 0;
}

function emptyTab(name: string): EncodedCsvTab {
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

/** The tab the service keeps, from what the parse thread sent. */
export function decodeCsvTab(tab: EncodedCsvTab): CsvTab {
  const { rows, columns, cellStart, kinds, values, strings, shownAt, shownTexts, upperBooleans } = tab;
  const typed: CellValue[][] = new Array(rows);
  let shown = 0;
  for (let r = 0; r < rows; r++) {
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
    if (shown < shownAt.length && shownAt[shown]! < end) {
      const texts = shownRow(row, upperBooleans);
      while (shown < shownAt.length && shownAt[shown]! < end) {
        texts[shownAt[shown]! - first] = shownTexts[shown]!;
        shown++;
      }
      SHOWN.set(row, texts);
    }
    typed[r] = row;
  }
  return new CsvTab(tab, typed);
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
  /** The header record's displayed texts, one per column ('' for an empty cell). */
  declare readonly headerTexts: string[];
  /** Per column: its booleans show as `TRUE`/`FALSE`. */
  declare readonly upperBooleans: boolean[];
  readonly #head: CsvTabHead;

  constructor(head: CsvTabHead, typed: CellValue[][]) {
    this.#head = head;
    let formatted: string[][] | null = null;
    const upper = head.upperBooleans;
    Object.defineProperties(this, {
      sourceSheetId: { value: CSV_SHEET_ID, enumerable: true },
      name: { value: head.name, enumerable: true },
      header: { value: head.header, enumerable: true },
      headerRow: { value: head.headerRow, enumerable: true },
      typed: { value: typed, enumerable: true },
      formatted: {
        enumerable: true,
        get: () => {
          formatted ??= typed.map((row) => SHOWN.get(row) ?? shownRow(row, upper));
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
