/**
 * One cell as the file holds it (type attribute, `<v>` text, inline text, formula flag, number format) ->
 * the `{ typed, formatted }` pair the API serves. The rules are today's engine's (values.ts): numbers under
 * a date format are dates, formulas read as their cached result, booleans show TRUE/FALSE, errors as text.
 */

import { dateToSerial, isoFromDate, serialToDate } from '../../serial-dates.ts';
import type { GridCell } from '../../tab.ts';
import { decodeCellText } from '../ooxml-text.ts';
import { formatValue, isDateFormat, isGeneralFormat } from '../values.ts';

/** What ExcelJS gives a date cell that has no number format of its own (numFmtId 14). */
const DEFAULT_DATE_FORMAT = 'mm-dd-yy';
/** Days between the 1900 and 1904 date systems' day zero. */
const DATE1904_OFFSET = 1462;

export interface RawCell {
  /** The `t` attribute (undefined = number). */
  type: string | undefined;
  /** `<v>` text, or the joined `<is>` text for inline strings; undefined when the cell has neither. */
  value: string | undefined;
  hasFormula: boolean;
  numFmt: string | undefined;
}

export interface ReadContext {
  sharedStrings: readonly string[];
  date1904: boolean;
}

function textCell(s: string): GridCell | null {
  if (s === '') return null;
  const text = decodeCellText(s);
  return { typed: text, formatted: text };
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

/** Formatted text per format and value: columns repeat values (quantities, dates), and numfmt is the cost. */
const formatted = new Map<string, Map<number, string>>();
const CACHE_PER_FORMAT = 50_000;
function formatNumber(pattern: string | undefined, n: number): string {
  // General shows an integer below 1e11 as its digits (numfmt agrees); skip numfmt for the commonest case.
  if (isGeneralFormat(pattern) && Number.isInteger(n) && Math.abs(n) < 1e11) return String(n === 0 ? 0 : n);
  const key = pattern ?? 'General';
  let cache = formatted.get(key);
  if (!cache) {
    if (formatted.size > 1_000) formatted.clear();
    cache = new Map();
    formatted.set(key, cache);
  }
  let text = cache.get(n);
  if (text === undefined) {
    text = formatValue(pattern, n);
    if (cache.size > CACHE_PER_FORMAT) cache.clear();
    cache.set(n, text);
  }
  return text;
}

function numberCell(n: number, numFmt: string | undefined, ctx: ReadContext): GridCell | null {
  if (!Number.isFinite(n)) return null;
  if (!showsDate(numFmt)) return { typed: n, formatted: formatNumber(numFmt, n) };
  const date = serialToDate(ctx.date1904 ? n + DATE1904_OFFSET : n);
  const iso = isoFromDate(date);
  if (iso === null) return null;
  const pattern = isGeneralFormat(numFmt) ? DEFAULT_DATE_FORMAT : numFmt;
  return { typed: iso, formatted: formatNumber(pattern, dateToSerial(date)) };
}

function booleanCell(text: string): GridCell {
  const value = Number.parseInt(text, 10) !== 0;
  return { typed: value, formatted: value ? 'TRUE' : 'FALSE' };
}

export function readCell(cell: RawCell, ctx: ReadContext): GridCell | null {
  const { type, value } = cell;
  if (value === undefined) return null;
  if (type === 'inlineStr' || type === 'str') return textCell(value);
  if (type === 's') {
    if (cell.hasFormula) return numberCell(Number.parseFloat(value), cell.numFmt, ctx);
    return textCell(ctx.sharedStrings[Number.parseInt(value, 10)] ?? '');
  }
  if (type === 'b') return booleanCell(value);
  if (type === 'e') return { typed: value, formatted: value };
  if (type === 'd') return textCell(value); // ISO date text (strict files; Excel never writes it)
  if (value === '') return null;
  return numberCell(Number.parseFloat(value), cell.numFmt, ctx);
}
