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
import type { FieldSink } from './csv-scan.ts';
import { type EncodedCsvTab, emptyTab, Kind, shownOf } from './csv-tab.ts';
import { TextTable } from './csv-text-table.ts';
import { readCsvCell } from './values.ts';

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
  done(count = this.length): T {
    return this.array.slice(0, count) as T;
  }
}

const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);
const QUOTE_MARK = 0x27; // ', the formula guard's marker
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
/** A field `fastNumber` leaves to `readCsvCell`, or reads as text (no number it returns is infinite). */
const SLOW = Number.POSITIVE_INFINITY;
const TEXT = Number.NEGATIVE_INFINITY;

/**
 * The value of a canonical number (`-?(0|[1-9]\d*)(\.\d+)?`) of up to 15 digits whose text is what the value
 * prints as (no trailing zero after the point, not `-0`, not so small it prints with an exponent): 15 digits and
 * a power of ten are exact doubles, so their quotient is the correctly rounded value `Number(text)` gives. `TEXT`
 * for a field that is no number; `SLOW` for any other number.
 */
function fastNumber(buf: Buffer, start: number, end: number): number {
  let i = start;
  const negative = buf[i] === MINUS;
  if (negative) i++;
  if (i >= end) return TEXT;
  let m = 0;
  let digits = 0;
  const first = buf[i]! - ZERO;
  if (first === 0) {
    i++;
    digits = 1;
  } else if (first > 0 && first <= 9) {
    while (i < end) {
      const d = buf[i]! - ZERO;
      if (d < 0 || d > 9) break;
      m = m * 10 + d;
      digits++;
      i++;
    }
  } else return TEXT;
  let k = 0;
  if (i < end && buf[i] === DOT) {
    i++;
    while (i < end) {
      const d = buf[i]! - ZERO;
      if (d < 0 || d > 9) break;
      m = m * 10 + d;
      digits++;
      k++;
      i++;
    }
    if (k === 0) return TEXT;
    if (buf[i - 1] === ZERO) return i === end ? SLOW : afterDigits(buf[i]!);
  }
  if (i < end) return afterDigits(buf[i]!);
  if (digits > 15) return SLOW;
  const value = k > 0 ? m / POW10[k]! : m;
  if (value === 0 ? negative : value < 1e-6) return SLOW;
  return negative ? -value : value;
}

/** After the digits: an exponent makes it a number only `Number` reads; anything else makes it text. */
function afterDigits(next: number): number {
  return next === 0x65 || next === 0x45 ? SLOW : TEXT;
}

/** What `booleanOf` finds. */
const NOT_BOOLEAN = 0;
const MIXED_CASE = 1;
const LOWER = 2;
const UPPER = 3;

/** Whether the field is `true`/`false`, and in which case (its value: its length). */
function booleanOf(buf: Buffer, start: number, end: number): number {
  const length = end - start;
  const word = length === 4 ? 'true' : length === 5 ? 'false' : null;
  if (!word) return NOT_BOOLEAN;
  let lower = 0;
  for (let i = 0; i < length; i++) {
    const b = buf[start + i]!;
    const w = word.charCodeAt(i);
    if (b === w) lower++;
    else if (b !== w - 0x20) return NOT_BOOLEAN;
  }
  if (lower !== 0 && lower !== length) return MIXED_CASE;
  return lower === 0 ? UPPER : LOWER;
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

  /** `buf` holds the bytes the fields given by place are in. */
  constructor(buf: Buffer, name: string, limits: GridLimits | undefined) {
    this.#table = new TextTable(buf);
    this.#name = name;
    this.#limits = limits;
  }

  text(field: string): void {
    if (this.#headerIndex < 0) {
      this.#candidate.push(readCsvCell(field)?.formatted ?? '');
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

  /** The record's fields are all given. */
  endRecord(): void {
    const index = this.#records++;
    const used = this.#used;
    const first = this.#first;
    this.#column = 0;
    this.#used = 0;
    if (this.#headerIndex < 0) {
      const texts = this.#candidate;
      this.#candidate = [];
      const width = usedWidth(texts);
      if (width === 0) return;
      this.#headerIndex = this.#lastIndex = index;
      this.#columns = width;
      this.#headerTexts = texts.slice(0, width);
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
    if (used === 0) return;
    this.#lastIndex = index;
    this.#cellsAtLast = first + used;
    if (used > this.#columns) this.#columns = used;
    this.#checkGrowth();
  }

  /** A field typed by `readCsvCell` itself. */
  #cell(c: number, field: string): void {
    const cell = readCsvCell(field);
    if (cell === null) {
      if (!this.#over) this.#push(Kind.Empty, 0);
      return;
    }
    this.#used = c + 1;
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
