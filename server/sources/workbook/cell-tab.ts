/**
 * A workbook tab in memory: typed values as row arrays (what the query engine, the diff and the output formats read),
 * a small format code per cell (format-codes.ts: held once per column when every row has the same), and the
 * displayed text computed only when asked for (`formatted`). A tab just read from the parse thread's columns
 * (encoded-tab.ts) makes its rows on demand and behind (rows-on-demand.ts).
 */

import { freeBuffersUnder } from '../../lib/free-buffer.ts';
import type { CellValue, RowsOnDemand, TabSnapshot } from '../source.ts';
import { cellRow, type EncodedTab } from './encoded-tab.ts';
import { FormatCodes } from './format-codes.ts';
import { displayText } from './number-formats.ts';
import { DecodingRows, rowProperties } from './rows-on-demand.ts';

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
  /** The rows, or the columns they are being made from. */
  typed: CellValue[][] | DecodingRows;
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
  /** While the rows are still being made from the read's columns (tab-rows.ts). */
  declare readonly onDemand?: RowsOnDemand;

  readonly #init: CellTabInit;

  constructor(init: CellTabInit) {
    this.#init = init;
    let formatted: string[][] | null = null;
    let withFormulas: CellValue[][] | null = null;
    const width = init.header.length;
    const { codes } = init;
    const { rows, properties } = rowProperties(init.typed);
    Object.defineProperties(this, {
      sourceSheetId: { value: init.sourceSheetId, enumerable: true },
      name: { value: init.name, enumerable: true },
      header: { value: init.header, enumerable: true },
      headerRow: { value: init.headerRow, enumerable: true },
      ...properties,
      formatted: {
        enumerable: true,
        get: () => {
          formatted ??= rows().map((row, r) =>
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
          const typed = rows();
          if (formulas.size === 0) withFormulas = typed;
          else {
            const shown = typed.slice();
            for (const [at, text] of formulas) {
              const r = Math.floor(at / width);
              if (shown[r] === typed[r]) shown[r] = typed[r]!.slice();
              shown[r]![at % width] = `=${text}`;
            }
            withFormulas = shown;
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

/** The tab the service keeps, from what the parse thread sent: its rows made on demand and behind (paced). */
export function decodeTab(tab: EncodedTab): CellTab {
  const rows = new DecodingRows({
    rows: tab.rows,
    make: (r) => cellRow(tab, r),
    // The columns' buffers (9 bytes a cell) are given back at once, whole when the grid is a part of them (made
    // in the parse's cell list: ooxml/cell-grid.ts).
    release: () => freeBuffersUnder([tab.kinds, tab.values]),
  });
  return tabOf(tab, rows);
}

function tabOf(tab: EncodedTab, typed: DecodingRows): CellTab {
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
