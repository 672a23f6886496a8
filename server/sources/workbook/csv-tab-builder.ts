/**
 * Builds a .csv file's tab as its fields are scanned, with the tab builder's rules (tab.ts `buildTab`): the
 * header is the first record with a cell, trailing records without one are not rows, the width is the widest
 * row's, and the grid's cells and text are refused past the limits, in the tab builder's words.
 *
 * Each field is typed as `readCsvCell` types it (values.ts). The common fields are typed from their bytes without
 * making a string: an empty field, a canonical number of up to 15 digits whose text is the one its value prints as,
 * `true`/`false` written the way the column writes them, and a text (looked up by its bytes: csv-text-table.ts).
 * Every other field (in quotes, behind the formula guard's `'`, `1.50`, `1e3`, `True`) goes through
 * `readCsvCell` itself.
 */
import { AppError } from '../../errors.ts';
import { resolveHeader } from '../header.ts';
import { type GridLimits, GridTooLarge } from '../tab.ts';
import {
  booleanOf,
  fastNumber,
  MINUS,
  MIXED_CASE,
  NOT_BOOLEAN,
  QUOTE_MARK,
  SLOW,
  TEXT,
  UPPER,
  ZERO,
} from './csv-field-type.ts';
import {
  EXPECT_AFTER_RECORDS,
  EXPECT_MARGIN,
  expectedCells,
  expectedLines,
  MAX_CSV_COLUMNS,
  maxLinesOf,
  tooManyLinesFor,
  tooWideFor,
} from './csv-read-bounds.ts';
import type { FieldSink } from './csv-scan.ts';
import { type EncodedCsvTab, emptyTab, Kind, shownOf } from './csv-tab.ts';
import { TextTable } from './csv-text-table.ts';
import { Growing } from './growing-array.ts';
import { readCsvCell } from './values.ts';

/** The records a continuing builder read (`CsvTabBuilder.part`), with their cells numbered from its first. */
export interface CsvTabPart {
  records: number;
  /** The last record with a cell, counted from 1 (0: none had one), and the cells up to its end. */
  lastRecord: number;
  cellsAtLast: number;
  columns: number;
  text: number;
  over: boolean;
  /** Per column: how its booleans show, as the part's first one decided (1 upper, 0 lower, -1 none read). */
  upper: Int8Array;
  cellStart: Float64Array;
  kinds: Uint8Array;
  values: Float64Array;
  strings: string[];
  shownAt: Float64Array;
  shownTexts: string[];
}

export class CsvTabBuilder implements FieldSink {
  readonly #name: string;
  readonly #limits: GridLimits | undefined;
  readonly #table: TextTable;
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
  /** Per column: its booleans show upper case (decided by its first boolean). */
  readonly #upper: boolean[] = [];
  /** The cells kept up to the last record with a cell (those of trailing blank records are dropped at the end). */
  #cellsAtLast = 0;
  /** The record being read: its next column, its width so far, where its cells start; texts of a header candidate. */
  #column = 0;
  #used = 0;
  #first = 0;
  #candidate: string[] = [];
  /** The bytes the builder's records lie in, and where its first data record starts (-1 before it). */
  readonly #bytes: number;
  #dataFrom = -1;
  /** How many times what was read the whole bytes are expected to hold, once expected (`#expectTheRest`); 0 before. */
  #scale = 0;

  /**
   * `buf` holds the bytes the fields given by place are in. A builder that `continues` another reads the records
   * after those of one that has its header: every record is a data record, and `part()` hands them over.
   */
  constructor(buf: Buffer, name: string, limits: GridLimits | undefined, continues = false) {
    this.#table = new TextTable(buf);
    this.#bytes = buf.length;
    this.#name = name;
    this.#limits = limits;
    if (!continues) return;
    this.#headerIndex = this.#lastIndex = 0;
    this.#records = 1;
    this.#cellStart.push(0);
  }

  /** Whether the header record has been read: a builder may continue this one from here. */
  get hasHeader(): boolean {
    return this.#headerIndex >= 0;
  }

  /** What a continuing builder read (its records come after the other builder's): see `append`. */
  part(): CsvTabPart {
    return {
      records: this.#records - 1,
      lastRecord: this.#lastIndex,
      cellsAtLast: this.#cellsAtLast,
      columns: this.#columns,
      text: this.#text,
      over: this.#over,
      upper: Int8Array.from(this.#upper, (u) => (u === undefined ? -1 : u ? 1 : 0)),
      cellStart: this.#cellStart.done(),
      kinds: this.#kinds.done(this.#first),
      values: this.#values.done(this.#first),
      strings: this.#table.strings,
      shownAt: this.#shownAt.done(),
      shownTexts: this.#shownTexts,
    };
  }

  /**
   * The records a continuing builder read after this one's, taken as if this builder had read them itself; false
   * (and nothing taken) when that builder decided a column's booleans the other way round from this one, which
   * would have typed some of its cells differently.
   */
  append(part: CsvTabPart): boolean {
    for (let c = 0; c < part.upper.length; c++) {
      const decided = part.upper[c]!;
      if (decided >= 0 && this.#upper[c] !== undefined && this.#upper[c] !== (decided === 1)) return false;
    }
    part.upper.forEach((decided, c) => {
      if (decided >= 0) this.#upper[c] ??= decided === 1;
    });
    const cellBase = this.#first;
    if (part.lastRecord > 0) {
      this.#lastIndex = this.#records + part.lastRecord - 1;
      this.#cellsAtLast = cellBase + part.cellsAtLast;
    }
    this.#records += part.records;
    this.#columns = Math.max(this.#columns, part.columns);
    this.#text += part.text;
    this.#over ||= part.over;
    if (this.#over) return true; // refused at the finish: the cells need not be kept
    this.#kinds.append(part.kinds);
    const textBase = this.#table.appendStrings(part.strings);
    const at = this.#values.length;
    this.#values.append(part.values);
    const values = this.#values.array;
    for (let i = 0; i < part.kinds.length; i++) if (part.kinds[i] === Kind.Text) values[at + i]! += textBase;
    const row = this.#cellStart.length;
    this.#cellStart.append(part.cellStart.subarray(1));
    const cellStart = this.#cellStart.array;
    for (let r = row; r < this.#cellStart.length; r++) cellStart[r]! += cellBase;
    for (let i = 0; i < part.shownAt.length; i++) {
      this.#shownAt.push(part.shownAt[i]! + cellBase);
      this.#shownTexts.push(part.shownTexts[i]!);
    }
    this.#first = cellBase + part.kinds.length;
    return true;
  }

  text(field: string): void {
    if (this.#headerIndex < 0) {
      const c = this.#column++;
      const shown = readCsvCell(field)?.formatted ?? '';
      // Past the widest tab only its width is measured (`#used`): the header is refused (`finish`).
      if (c < MAX_CSV_COLUMNS) this.#candidate.push(shown);
      else if (shown !== '') this.#used = c + 1;
      return;
    }
    this.#cell(this.#column++, field);
  }

  bytes(buf: Buffer, start: number, end: number): void {
    if (this.#headerIndex < 0 || start === end) {
      this.text(buf.toString('utf8', start, end));
      return;
    }
    const c = this.#column++;
    this.#used = c + 1; // a field with a character always is a cell
    if (c >= MAX_CSV_COLUMNS) this.#over = true; // refused at the finish: the cells need not be kept
    if (this.#over) return;
    const b0 = buf[start]!;
    if (b0 === QUOTE_MARK) {
      this.#slow(c, buf.toString('utf8', start, end));
      return;
    }
    if (b0 === MINUS || (b0 >= ZERO && b0 <= ZERO + 9)) {
      const n = fastNumber(buf, start, end);
      if (n === SLOW) {
        this.#slow(c, buf.toString('utf8', start, end));
        return;
      }
      if (n !== TEXT) {
        this.#text += end - start;
        this.#push(Kind.Number, n);
        return;
      }
    } else {
      const bool = booleanOf(buf, start, end);
      if (bool === MIXED_CASE) {
        this.#slow(c, buf.toString('utf8', start, end));
        return;
      }
      if (bool !== NOT_BOOLEAN) {
        this.#upper[c] ??= bool === UPPER;
        if (this.#upper[c] !== (bool === UPPER)) {
          this.#slow(c, buf.toString('utf8', start, end));
          return;
        }
        this.#text += end - start;
        this.#push(end - start === 4 ? Kind.True : Kind.False, 0);
        return;
      }
    }
    const id = this.#table.idOfBytes(start, end);
    this.#text += 2 * this.#table.strings[id]!.length;
    this.#push(Kind.Text, id);
  }

  /** The record's fields are all given; its text is `[start, end)` of the builder's bytes. */
  endRecord(start: number, end: number): void {
    const index = this.#records++;
    const used = this.#used;
    const first = this.#first;
    this.#column = 0;
    this.#used = 0;
    if (this.#headerIndex < 0) {
      const texts = this.#candidate;
      this.#candidate = [];
      const width = used || usedWidth(texts); // `used`: a cell past the widest tab's
      if (width === 0) return;
      this.#headerIndex = this.#lastIndex = index;
      this.#columns = width;
      this.#headerTexts = texts.slice(0, width);
      this.#over ||= width > MAX_CSV_COLUMNS;
      this.#cellStart.push(0);
      this.#first = 0;
      return;
    }
    if (!this.#over) {
      // Empty cells after the last used one are not kept: the row is padded when decoded.
      this.#kinds.length = first + used;
      this.#values.length = first + used;
      this.#cellStart.push(first + used);
      this.#first = first + used;
    }
    if (this.#dataFrom < 0) this.#dataFrom = start;
    else if (index - this.#headerIndex === EXPECT_AFTER_RECORDS) this.#expectTheRest(end);
    if (used === 0) return;
    this.#lastIndex = index;
    this.#cellsAtLast = first + used;
    if (used > this.#columns) this.#columns = used;
    this.#checkGrowth();
  }

  /**
   * The cells and records of the whole bytes expected from those up to `end` (the rest of the file is assumed as
   * dense), and room made for them now rather than by doublings, never beyond the cells the limits let a tab hold.
   */
  #expectTheRest(end: number): void {
    const read = end - this.#dataFrom;
    if (read <= 0 || this.#over) return;
    const scale = ((this.#bytes - this.#dataFrom) / read) * EXPECT_MARGIN;
    this.#scale = scale;
    const cells = expectedCells(this.#kinds.length, scale, this.#limits);
    this.#kinds.expect(cells);
    this.#values.expect(cells);
    this.#cellStart.expect(expectedLines(this.#cellStart.length, scale, this.#limits));
  }

  /** The most lines a read may have (csv-read-bounds.ts). */
  get maxLines(): number {
    return maxLinesOf(this.#limits);
  }

  /** No more cells kept (a read past `maxLines`, which is then refused): its lines are only scanned to the end. */
  stopKeepingCells(): void {
    this.#over = true;
  }

  /** The refusal of a read past `maxLines`. */
  tooManyLines(): GridTooLarge {
    return tooManyLinesFor(this.#limits);
  }

  /**
   * The records `count` records read so far are expected to grow to, within the limits (the sink's record
   * positions are sized by it, as the cells are); 0 until the rest is expected.
   */
  recordsExpected(count: number): number {
    return this.#scale === 0 ? 0 : expectedLines(count, this.#scale, this.#limits);
  }

  /** A field typed by `readCsvCell` itself. */
  #cell(c: number, field: string): void {
    const cell = readCsvCell(field);
    if (cell === null) {
      if (!this.#over && c < MAX_CSV_COLUMNS) this.#push(Kind.Empty, 0);
      return;
    }
    this.#used = c + 1;
    if (c >= MAX_CSV_COLUMNS) this.#over = true;
    if (!this.#over) this.#slow(c, field);
  }

  #slow(c: number, field: string): void {
    const cell = readCsvCell(field)!;
    const { typed, formatted } = cell;
    this.#text += formatted.length + (typeof typed === 'string' ? typed.length : 0);
    if (typeof typed === 'number') this.#push(Kind.Number, typed);
    else if (typeof typed === 'boolean') {
      this.#push(typed ? Kind.True : Kind.False, 0);
      this.#upper[c] ??= formatted === 'TRUE' || formatted === 'FALSE';
    } else this.#push(Kind.Text, this.#table.idOfText(typed as string));
    if (formatted !== shownOf(typed, this.#upper[c])) {
      this.#shownAt.push(this.#kinds.length - 1);
      this.#shownTexts.push(formatted);
    }
  }

  #push(kind: number, value: number): void {
    // Cells skipped over (empty) before this one in the record are already pushed: one entry per column.
    this.#kinds.push(kind);
    this.#values.push(value);
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
    if (columns > MAX_CSV_COLUMNS) throw tooWideFor(name, columns);
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
    let shownCount = this.#shownAt.length;
    while (shownCount > 0 && this.#shownAt.array[shownCount - 1]! >= this.#cellsAtLast) shownCount--;
    return {
      name,
      header: resolveHeader(headerTexts),
      headerTexts,
      headerRow: this.#headerIndex + 1,
      rows,
      columns,
      cellStart: this.#cellStart.done(rows + 1),
      kinds: this.#kinds.done(this.#cellsAtLast),
      values: this.#values.done(this.#cellsAtLast),
      strings: this.#table.strings,
      upperBooleans: Array.from({ length: columns }, (_, c) => this.#upper[c] === true),
      shownAt: this.#shownAt.done(shownCount),
      shownTexts: this.#shownTexts.slice(0, shownCount),
    };
  }
}

function usedWidth(texts: readonly string[]): number {
  for (let c = texts.length - 1; c >= 0; c--) if (texts[c] !== '') return c + 1;
  return 0;
}
