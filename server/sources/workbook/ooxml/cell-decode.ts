/**
 * One scanned cell as the service reads it: numbers under a date format are dates (in the workbook's date
 * system, serial-dates.ts; a number the system shows as no date reads as the number),
 * formulas read as their cached result, booleans as booleans, errors as their text, strings with OOXML's
 * `_xHHHH_` escapes undone. Shared by the tab read (tab-builder.ts) and a row read back after a write
 * (sheet-row-read.ts), so both read a cell the same way.
 */
import { workbookDateSystem } from '../../serial-dates.ts';
import { Kind } from '../encoded-tab.ts';
import { AS_IS, BOOLEAN, DEFAULT_DATE_FORMAT, type NumberFormatTable } from '../number-formats.ts';
import { decodeCellText } from '../ooxml-text.ts';
import { isDateFormat, isGeneralFormat } from '../values.ts';
import type { ScannedCell } from './scanned-cell.ts';
import type { StylesPart } from './styles-part.ts';

export interface ReadContext {
  date1904: boolean;
  styles: StylesPart;
  /** Shared string `index` as the cell shows it (escapes undone); '' when there is none. */
  sharedString(index: number): string;
}

/** Whether a format shows dates, per format code (the test is a regex; a sheet has few distinct codes). */
const dateFormats = new Map<string, boolean>();
function showsDate(numFmt: string | undefined): boolean {
  if (numFmt === undefined) return false;
  let known = dateFormats.get(numFmt);
  if (known === undefined) {
    known = isDateFormat(numFmt);
    if (dateFormats.size > 10_000) dateFormats.clear();
    dateFormats.set(numFmt, known);
  }
  return known;
}

/** A cell's value as the service reads it: kind, the value (a number, or a text), and its format code. */
export interface DecodedCell {
  kind: number;
  number: number;
  text: string;
  code: number;
}

/**
 * The rules of reading one cell: numbers under a date format are dates, formulas read as their cached result,
 * booleans as booleans, errors as their text, inline and shared strings with OOXML's `_xHHHH_` escapes undone.
 * Writes `out` and returns false for an empty cell.
 */
export function decodeCell(
  cell: ScannedCell,
  ctx: ReadContext,
  numberFormats: NumberFormatTable,
  out: DecodedCell,
): boolean {
  const { type, value } = cell;
  if (value === undefined) return false;
  const text = (s: string) => {
    if (s === '') return false;
    out.kind = Kind.Text;
    out.text = decodeCellText(s);
    out.code = AS_IS;
    return true;
  };
  if (type === 'inlineStr' || type === 'str' || type === 'd') return text(value);
  if (type === 's' && cell.formula === undefined) {
    const shared = ctx.sharedString(Number.parseInt(value, 10));
    if (shared === '') return false;
    out.kind = Kind.Text;
    out.text = shared;
    out.code = AS_IS;
    return true;
  }
  if (type === 'b') {
    out.kind = Kind.Boolean;
    out.number = Number.parseInt(value, 10) !== 0 ? 1 : 0;
    out.code = BOOLEAN;
    return true;
  }
  if (type === 'e') {
    out.kind = Kind.Error;
    out.text = value;
    out.code = AS_IS;
    return true;
  }
  if (value === '') return false;
  const n = Number.parseFloat(value);
  if (!Number.isFinite(n)) return false;
  decodeNumber(n, styleFormat(cell.style, ctx), ctx.date1904, numberFormats, out);
  return true;
}

/**
 * How a style shows a number: its pattern, whether as a date, and the format codes of the number and of the
 * date, each registered in the tab's table when first used (-1 until then).
 */
export interface StyleFormat {
  pattern: string | undefined;
  date: boolean;
  numberCode: number;
  dateCode: number;
}

/** The format of style `style` (a sheet has few styles: a reader may keep what this gives per style). */
export function styleFormat(style: number, ctx: ReadContext): StyleFormat {
  const pattern = ctx.styles.numFmt(style);
  return { pattern, date: showsDate(pattern), numberCode: -1, dateCode: -1 };
}

/**
 * A number cell under its style's format: a date when the format shows dates and the workbook's date system
 * has that day; else the number itself (also under a date format when the system shows no date for it: Excel's
 * 1900-02-29, a negative serial, one past 9999-12-31), displayed as its format renders it.
 */
export function decodeNumber(
  n: number,
  format: StyleFormat,
  date1904: boolean,
  numberFormats: NumberFormatTable,
  out: DecodedCell,
): void {
  const iso = format.date ? workbookDateSystem(date1904).iso(n) : null;
  out.number = n;
  if (iso === null) {
    out.kind = Kind.Number;
    if (format.numberCode < 0) format.numberCode = numberFormats.code(format.pattern);
    out.code = format.numberCode;
    return;
  }
  out.kind = Kind.Date;
  out.text = iso;
  if (format.dateCode < 0)
    format.dateCode = numberFormats.code(
      isGeneralFormat(format.pattern) ? DEFAULT_DATE_FORMAT : format.pattern,
    );
  out.code = format.dateCode;
}
