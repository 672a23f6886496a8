/**
 * A workbook tab in memory: typed values as row arrays (what the query engine, the diff and the output formats read),
 * a small format code per cell (format-codes.ts: held once per column when every row has the same), and the
 * displayed text computed only when asked for (`formatted`).
 *
 * Between the parse thread and the service a tab travels as `EncodedTab`: flat typed arrays (moved, not copied)
 * and one table of distinct strings, so a text that repeats down a column is one string in memory, and the
 * copy between threads costs the distinct strings only.
 */

import { freeBuffersUnder } from '../../lib/free-buffer.ts';
import { pacer } from '../../lib/pacer.ts';
import type { CellValue, TabSnapshot } from '../source.ts';
import { FormatCodes } from './format-codes.ts';
import { displayText } from './number-formats.ts';

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

/** The shared strings a tab uses, by their index in the workbook, as the tab's string table holds them. */
export class SharedStrings {
  readonly #strings: readonly string[];
  readonly #ids: Int32Array;

  constructor(strings: readonly string[], ids: Int32Array) {
    this.#strings = strings;
    this.#ids = ids;
  }

  /** The text of shared string `index` ('' for one the tab does not use). */
  get(index: number): string {
    const id = this.#ids[index] ?? -1;
    return id < 0 ? '' : (this.#strings[id] ?? '');
  }
}

export interface CellTabInit {
  sourceSheetId: string;
  name: string;
  header: string[];
  headerTexts: string[];
  headerRow: number;
  typed: CellValue[][];
  codes: FormatCodes;
  numberFormats: string[];
  shared: SharedStrings;
  /** Formula text (without `=`) by data cell (`row * header.length + column`). */
  formulas?: ReadonlyMap<number, string>;
  /** Formula text (without `=`) of header cells by column (0-based): a write may rename their columns. */
  headerFormulas?: ReadonlyMap<number, string>;
}

const NO_FORMULAS: ReadonlyMap<number, string> = new Map();

/**
 * A TabSnapshot whose displayed texts are made on first use. It reads as a plain snapshot: its own fields are
 * the snapshot's (`formatted` among them), the rest (codes, number formats, header texts, shared strings) are not
 * enumerable, so equality checks and JSON see exactly a TabSnapshot.
 */
export class CellTab implements TabSnapshot {
  declare readonly sourceSheetId: string;
  declare readonly name: string;
  declare readonly header: string[];
  declare readonly headerRow: number;
  declare readonly typed: CellValue[][];
  /** The text each cell displays, made on first use and kept (a tab never changes; a change makes a new one). */
  declare readonly formatted: string[][];
  /** The header row's texts before they became unique names ('' for an empty cell). */
  declare readonly headerTexts: string[];
  /** Format code of each data cell. */
  declare readonly codes: FormatCodes;
  /** The number formats the codes name (shared by the versions of a tab; only ever grows). */
  declare readonly numberFormats: string[];
  /** The workbook's shared strings this tab uses: what a write needs to read back a row it rewrote. */
  declare readonly shared: SharedStrings;
  /** Formula text (without `=`) by data cell (`row * header.length + column`). */
  declare readonly formulas: ReadonlyMap<number, string>;
  /** `typed`, with each formula cell's formula (`=B2*C2`) in place of its result (`?values=formula`). */
  declare readonly withFormulas: CellValue[][];
  /** Formula text (without `=`) of the header row's cells, by column (0-based). */
  declare readonly headerFormulas: ReadonlyMap<number, string>;

  readonly #init: CellTabInit;

  constructor(init: CellTabInit) {
    this.#init = init;
    let formatted: string[][] | null = null;
    let withFormulas: CellValue[][] | null = null;
    const width = init.header.length;
    const { codes } = init;
    Object.defineProperties(this, {
      sourceSheetId: { value: init.sourceSheetId, enumerable: true },
      name: { value: init.name, enumerable: true },
      header: { value: init.header, enumerable: true },
      headerRow: { value: init.headerRow, enumerable: true },
      typed: { value: init.typed, enumerable: true },
      formatted: {
        enumerable: true,
        get: () => {
          formatted ??= init.typed.map((row, r) =>
            row.map((value, c) => displayText(value, codes.at(r, c), init.numberFormats)),
          );
          return formatted;
        },
      },
      headerTexts: { value: init.headerTexts },
      codes: { value: init.codes },
      numberFormats: { value: init.numberFormats },
      shared: { value: init.shared },
      formulas: { value: init.formulas ?? NO_FORMULAS },
      headerFormulas: { value: init.headerFormulas ?? NO_FORMULAS },
      withFormulas: {
        get: () => {
          if (withFormulas) return withFormulas;
          const formulas = init.formulas ?? NO_FORMULAS;
          if (formulas.size === 0) withFormulas = init.typed;
          else {
            const rows = init.typed.slice();
            for (const [at, text] of formulas) {
              const r = Math.floor(at / width);
              if (rows[r] === init.typed[r]) rows[r] = init.typed[r]!.slice();
              rows[r]![at % width] = `=${text}`;
            }
            withFormulas = rows;
          }
          return withFormulas;
        },
      },
    });
  }

  /** The same tab with its formulas reading `formulas` (a delete elsewhere moved their references). */
  withFormulaTexts(formulas: ReadonlyMap<number, string>, headerFormulas = this.headerFormulas): CellTab {
    return new CellTab({ ...this.#init, formulas, headerFormulas });
  }
}

/** The tab the service keeps, from what the parse thread sent. */
export function decodeTab(tab: EncodedTab): CellTab {
  const typed: CellValue[][] = new Array(tab.rows);
  decodeRows(tab, 0, tab.rows, typed);
  return tabOf(tab, typed);
}

/** Rows decoded per slice of `decodeTabPaced`: a few milliseconds. */
const SLICE_ROWS = 20_000;

/** `decodeTab` a slice of rows at a time: a tab of a million rows takes half a second to decode. */
export async function decodeTabPaced(tab: EncodedTab): Promise<CellTab> {
  const typed: CellValue[][] = new Array(tab.rows);
  const pace = pacer();
  for (let from = 0; from < tab.rows; from += SLICE_ROWS) {
    decodeRows(tab, from, Math.min(tab.rows, from + SLICE_ROWS), typed);
    await pace();
  }
  return tabOf(tab, typed);
}

function decodeRows(tab: EncodedTab, from: number, to: number, typed: CellValue[][]): void {
  const { columns, kinds, values, strings } = tab;
  for (let r = from; r < to; r++) {
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
    typed[r] = row;
  }
}

function tabOf(tab: EncodedTab, typed: CellValue[][]): CellTab {
  // The rows hold every cell now: the cells' flat buffers (9 bytes a cell) are given back at once, whole when
  // the grid is a part of them (made in the parse's cell list: ooxml/cell-grid.ts).
  freeBuffersUnder([tab.kinds, tab.values]);
  const { strings } = tab;
  return new CellTab({
    sourceSheetId: tab.sourceSheetId,
    name: tab.name,
    header: tab.header,
    headerTexts: tab.headerTexts,
    headerRow: tab.headerRow,
    typed,
    codes: FormatCodes.of(tab.codes, tab.columns, tab.rows),
    numberFormats: tab.numberFormats,
    shared: new SharedStrings(strings, tab.sst),
    formulas: formulaMap(tab),
    headerFormulas: tab.headerFormulas?.length ? new Map(tab.headerFormulas) : NO_FORMULAS,
  });
}

function formulaMap(tab: EncodedTab): ReadonlyMap<number, string> {
  if (tab.formulaTexts.length === 0) return NO_FORMULAS;
  const map = new Map<number, string>();
  tab.formulaTexts.forEach((text, i) => {
    map.set(tab.formulaAt[i]!, text);
  });
  return map;
}
