/**
 * Scanned cells -> the tab the service serves (an EncodedTab), with the row rules every kind shares (header =
 * first non-empty row, empty rows between data rows kept, trailing ones dropped, merged non-anchor cells empty)
 * and the grid limits checked before the grid is built. Cells are kept as flat typed arrays while scanning, in
 * whatever order the file lists them; distinct strings are stored once.
 */
import { resolveHeader } from '../../header.ts';
import { type GridLimits, GridTooLarge } from '../../tab.ts';
import { type EncodedTab, Kind } from '../encoded-tab.ts';
import { EXCEL_MAX_COLUMNS } from '../excel-grid.ts';
import type { FormulaInput, FormulaResult, SheetCells } from '../formulas/evaluator.ts';
import { formulaLibrary } from '../formulas/parser.ts';
import { AS_IS, BOOLEAN, displayText, NumberFormatTable } from '../number-formats.ts';
import {
  type DecodedCell,
  decodeCell,
  decodeNumber,
  type ReadContext,
  type StyleFormat,
  styleFormat,
} from './cell-decode.ts';
import { cellGrid } from './cell-grid.ts';
import { CellList } from './cell-list.ts';
import { FormulaCells } from './formula-cells.ts';
import { mergeCover } from './merged-cells.ts';
import type { FastCellSink, ScannedCell } from './scanned-cell.ts';
import { TextIds } from './text-ids.ts';

export class TabBuilder implements FastCellSink {
  readonly #ctx: ReadContext;
  readonly #numberFormats = new NumberFormatTable();
  readonly #capacity: number;
  #cells: CellList;
  /** Date cells by serial and format code: a column of dates repeats few days, and each costs a conversion. */
  #dates = new Map<number, { id: number; code: number }[]>();
  #texts = new TextIds();
  /** Shared string index -> its id in `#strings` (-1: not met yet): a repeated shared string costs a lookup. */
  #sst: Int32Array;
  /** Date cells' serial numbers by their text's id (NaN for a text of no date): what a formula reading them sees. */
  #dateSerials = new Float64Array(0);
  readonly #decoded: DecodedCell = { kind: Kind.Empty, number: 0, text: '', code: 0 };
  /** How each style met shows a number, by style id. */
  #styleFormats: (StyleFormat | undefined)[] = [];
  /** Formula cells met (their cached results may be stale after a write). */
  formulas = 0;
  /** Those cells' formulas, for `?values=formula` and the evaluator. */
  readonly formulaCells = new FormulaCells();
  /** Where each scanned cell is in the cell list, built when a formula first reads a cell. */
  #at: Map<number, number> | null = null;

  /**
   * `sharedStrings`: how many the workbook has (`ctx.sharedString` gives each); `expectedCells`: a guess of the
   * cells to come (from the part's size), so the lists rarely grow.
   */
  constructor(ctx: ReadContext, sharedStrings: number, expectedCells = 0) {
    this.#ctx = ctx;
    this.#sst = new Int32Array(sharedStrings).fill(-1);
    this.#capacity = expectedCells;
    this.#cells = new CellList(expectedCells);
  }

  cell(cell: ScannedCell): void {
    // A reference past XFD is no cell of a sheet (Excel never writes one): it is not read.
    if (cell.column > EXCEL_MAX_COLUMNS) return;
    if (cell.formula !== undefined) {
      this.formulas++;
      this.formulaCells.add(cell);
    }
    if (cell.type === 's' && cell.formula === undefined && cell.value !== undefined) {
      this.sharedStringCell(cell.row, cell.column, Number.parseInt(cell.value, 10));
      return;
    }
    const d = this.#decoded;
    if (decodeCell(cell, this.#ctx, this.#numberFormats, d)) this.#push(cell.row, cell.column, d);
  }

  sharedStringCell(row: number, column: number, index: number): void {
    if (column > EXCEL_MAX_COLUMNS) return;
    let id = this.#sst[index] ?? -1;
    if (id < 0) {
      const text = this.#ctx.sharedString(index);
      if (text === '') return;
      id = this.#textId(text, column);
      if (index >= 0 && index < this.#sst.length) this.#sst[index] = id;
    }
    this.#cells.push(row, column, Kind.Text, id, AS_IS);
  }

  booleanCell(row: number, column: number, value: boolean): void {
    if (column > EXCEL_MAX_COLUMNS) return;
    this.#cells.push(row, column, Kind.Boolean, value ? 1 : 0, BOOLEAN);
  }

  numberCell(row: number, column: number, style: number, value: number): void {
    if (column > EXCEL_MAX_COLUMNS) return;
    let format = this.#styleFormats[style];
    if (!format) {
      format = styleFormat(style, this.#ctx);
      this.#styleFormats[style] = format;
    }
    const d = this.#decoded;
    if (format.date && format.dateCode >= 0) {
      const lookUp = this.#texts.lookUp(column);
      // A day met before under this format (where dates repeat): no date conversion.
      const known = lookUp ? this.#knownDate(value, format.dateCode) : -1;
      if (known >= 0) {
        this.#texts.found(column);
        this.#cells.push(row, column, Kind.Date, known, format.dateCode);
        return;
      }
      decodeNumber(value, format, this.#ctx.date1904, this.#numberFormats, d);
      this.#push(row, column, d, lookUp);
      return;
    }
    decodeNumber(value, format, this.#ctx.date1904, this.#numberFormats, d);
    this.#push(row, column, d);
  }

  /** The cell `d` of (row, column); `lookUp`: whether its text is to be looked up, if asked already. */
  #push(row: number, column: number, d: DecodedCell, lookUp?: boolean): void {
    if (d.kind === Kind.Number || d.kind === Kind.Boolean) {
      this.#cells.push(row, column, d.kind, d.number, d.code);
      return;
    }
    const look = lookUp ?? this.#texts.lookUp(column);
    const value =
      d.kind === Kind.Date
        ? this.#dateId(d, column, look)
        : look
          ? this.#texts.idOf(d.text, column)
          : this.#texts.add(d.text);
    this.#cells.push(row, column, d.kind, value, d.code);
  }

  /** The text id of a date of `serial` shown by format `code` met before, or -1. */
  #knownDate(serial: number, code: number): number {
    const seen = this.#dates.get(serial);
    if (seen) for (const known of seen) if (known.code === code) return known.id;
    return -1;
  }

  #dateId(d: DecodedCell, column: number, lookUp: boolean): number {
    if (!lookUp) return this.#withSerial(this.#texts.add(d.text), d.number);
    const known = this.#knownDate(d.number, d.code);
    if (known >= 0) {
      this.#texts.found(column);
      return known;
    }
    const id = this.#withSerial(this.#texts.idOf(d.text, column), d.number);
    const seen = this.#dates.get(d.number);
    if (seen) seen.push({ id, code: d.code });
    else this.#dates.set(d.number, [{ id, code: d.code }]);
    return id;
  }

  #textId(text: string, column: number): number {
    return this.#texts.lookUp(column) ? this.#texts.idOf(text, column) : this.#texts.add(text);
  }

  /** `id`, its date's serial noted. */
  #withSerial(id: number, serial: number): number {
    if (id >= this.#dateSerials.length) {
      const grown = new Float64Array(Math.max(1_024, id + 1, this.#dateSerials.length * 2)).fill(Number.NaN);
      grown.set(this.#dateSerials);
      this.#dateSerials = grown;
    }
    this.#dateSerials[id] = serial;
    return id;
  }

  /** The sheet as the evaluator reads it: scanned values, and the formulas with no cached result as pending. */
  sheetCells(name: string): SheetCells {
    const cells = this.#cells;
    const formulas = this.formulaCells;
    let bottom = 0;
    let right = 0;
    for (let i = 0; i < cells.length; i++) {
      if (cells.rows[i]! > bottom) bottom = cells.rows[i]!;
      if (cells.columns[i]! > right) right = cells.columns[i]!;
    }
    for (let i = 0; i < formulas.length; i++) {
      if (formulas.rows[i]! > bottom) bottom = formulas.rows[i]!;
      if (formulas.columns[i]! > right) right = formulas.columns[i]!;
    }
    return {
      name,
      bottom,
      right,
      value: (row, column) => this.#valueAt(row, column),
      pending: (row, column) => {
        const i = formulas.find(row, column);
        return i >= 0 && !formulas.cached[i] ? formulas.texts[i] : undefined;
      },
      arrayFormula: (row, column) => formulas.arrays.has(formulas.find(row, column)),
      formula: (row, column) => {
        const i = formulas.find(row, column);
        return i >= 0 ? formulas.texts[i] : undefined;
      },
    };
  }

  #valueAt(row: number, column: number): FormulaInput {
    const cells = this.#cells;
    if (!this.#at) {
      this.#at = new Map();
      for (let i = 0; i < cells.length; i++) this.#at.set(cells.rows[i]! * 16_384 + cells.columns[i]!, i);
    }
    const i = this.#at.get(row * 16_384 + column);
    if (i === undefined) return null;
    const value = cells.values[i]!;
    switch (cells.kinds[i]) {
      case Kind.Number:
        return value;
      case Kind.Boolean:
        return value === 1;
      case Kind.Text:
        return this.#texts.strings[value]!;
      case Kind.Date: {
        const serial = this.#dateSerials[value];
        return serial === undefined || Number.isNaN(serial) ? null : serial;
      }
      case Kind.Error:
        return new (formulaLibrary().FormulaError)(this.#texts.strings[value]!);
      default:
        return null;
    }
  }

  /** A formula's computed result, stored as if the file had held it as the cell's cached value. */
  addComputed(row: number, column: number, style: number, result: FormulaResult): void {
    const [type, value] =
      result.kind === 'number'
        ? [undefined, String(result.value)]
        : result.kind === 'boolean'
          ? ['b', result.value ? '1' : '0']
          : result.kind === 'error'
            ? ['e', result.value]
            : ['inlineStr', result.value.replace(/_(x[0-9A-Fa-f]{4}_)/g, '_x005F_$1')];
    // The cell index (#at) is not updated: a pending cell's value is the evaluator's to give, never the list's.
    this.cell({
      row,
      column,
      style,
      type,
      value,
      formula: undefined,
      formulaType: undefined,
      sharedIndex: undefined,
      formulaRef: undefined,
    });
  }

  reset(): void {
    this.formulas = 0;
    this.formulaCells.reset();
    this.#at = null;
    this.#dateSerials = new Float64Array(0);
    this.#cells = new CellList(this.#capacity);
    this.#dates = new Map();
    this.#texts.reset();
    this.#styleFormats = [];
    this.#sst.fill(-1);
  }

  finish(sourceSheetId: string, name: string, merges: readonly string[], limits?: GridLimits): EncodedTab {
    const cells = this.#cells;
    const {
      rows: cellRows,
      columns: cellColumns,
      kinds: cellKinds,
      values: cellValues,
      codes: cellCodes,
    } = cells;
    const count = cells.length;
    // The rows and columns the tab spans, as the list tracked them; merged non-anchor cells count as empty, so
    // with merges they are counted again without those.
    let { top, bottom, right: columns } = cells;
    const covered = mergeCover(merges);
    if (merges.length > 0) {
      top = Number.POSITIVE_INFINITY;
      bottom = 0;
      columns = 0;
      for (let i = 0; i < count; i++) {
        const row = cellRows[i]!;
        const column = cellColumns[i]!;
        if (covered(row, column)) {
          cellKinds[i] = Kind.Empty;
          continue;
        }
        if (row < top) top = row;
        if (row > bottom) bottom = row;
        if (column > columns) columns = column;
      }
    }
    const numberFormats = this.#numberFormats.patterns;
    if (bottom === 0) {
      return {
        ...encoded(sourceSheetId, name, [], 0, 0, 0, this.#texts.strings, numberFormats),
        sst: this.#sst,
      };
    }
    const spanned = bottom - top + 1;
    const before = limits?.cellsBefore ?? 0;
    if (limits && before + spanned * columns > limits.maxCells) {
      const together = before > 0 ? `, ${before + spanned * columns} with the tabs before it,` : ' in all,';
      throw new GridTooLarge(
        `has a tab ("${name}") of ${spanned} rows by ${columns} columns, ${spanned * columns} cells${together} over the limit of ${limits.maxCells} (SHEETPORT_MAX_CELLS).`,
      );
    }
    // The header row's texts and how often each text is used (its length is counted once per text, not looked
    // up for every cell), then the data rows into the dense grid.
    const rows = bottom - top;
    const headerTexts: string[] = new Array(columns).fill('');
    const strings = this.#texts.strings;
    const uses = new Float64Array(strings.length);
    for (let i = 0; i < count; i++) {
      const kind = cellKinds[i]!;
      if (kind === Kind.Empty) continue;
      const value = cellValues[i]!;
      if (cellRows[i] === top) {
        const typed = kind === Kind.Number ? value : kind === Kind.Boolean ? value === 1 : strings[value]!;
        headerTexts[cellColumns[i]! - 1] = displayText(typed, cellCodes[i]!, numberFormats);
      } else if (kind === Kind.Text || kind === Kind.Date || kind === Kind.Error) uses[value]!++;
    }
    let text = 0;
    for (let id = 0; id < uses.length; id++) text += uses[id]! * strings[id]!.length;
    if (limits && text > limits.maxTextChars) {
      throw new GridTooLarge(
        `holds more than ${limits.maxTextChars} characters of text once read, in its tab "${name}" (SHEETPORT_MAX_TEXT_MB).`,
      );
    }
    const header = resolveHeader(headerTexts);
    const { kinds, values, codes } = cellGrid(cells, top, rows, columns);
    return {
      ...encoded(sourceSheetId, name, header, top, rows, columns, strings, numberFormats),
      headerTexts,
      kinds,
      values,
      codes,
      sst: this.#sst,
      ...this.#formulasIn(top, bottom, columns, covered),
    };
  }

  /** The data rows' formulas, by their place in the grid (`row * columns + column`), and the header row's. */
  #formulasIn(
    top: number,
    bottom: number,
    columns: number,
    covered: (row: number, column: number) => boolean,
  ): Pick<EncodedTab, 'formulaAt' | 'formulaTexts' | 'headerFormulas'> {
    const f = this.formulaCells;
    const at: number[] = [];
    const texts: string[] = [];
    const header: [number, string][] = [];
    for (let i = 0; i < f.length; i++) {
      const row = f.rows[i]!;
      const column = f.columns[i]!;
      if (row < top || row > bottom || column > columns || covered(row, column)) continue;
      if (row === top) header.push([column - 1, f.texts[i]!]);
      else {
        at.push((row - top - 1) * columns + column - 1);
        texts.push(f.texts[i]!);
      }
    }
    return { formulaAt: Uint32Array.from(at), formulaTexts: texts, headerFormulas: header };
  }
}

function encoded(
  sourceSheetId: string,
  name: string,
  header: string[],
  headerRow: number,
  rows: number,
  columns: number,
  strings: string[],
  numberFormats: string[],
): EncodedTab {
  return {
    sourceSheetId,
    name,
    header,
    headerTexts: [],
    headerRow,
    rows,
    columns,
    kinds: new Uint8Array(rows * columns),
    values: new Float64Array(rows * columns),
    strings,
    codes: new Uint16Array(rows * columns),
    numberFormats,
    sst: new Int32Array(0),
    formulaAt: new Uint32Array(0),
    formulaTexts: [],
  };
}
