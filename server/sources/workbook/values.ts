/**
 * Cell values as the API returns them: a typed JSON value plus the text the sheet displays.
 * ExcelJS gives us raw cell contents; this file turns one cell into `{ typed, formatted }` with the rules of
 * the contract (dates as ISO 8601 from the UTC parts, formulas as their cached result, rich text flattened).
 * Formatting goes through numfmt so `"$"#,##0.00`, `m/d/yyyy`, `0%` render the way Excel shows them.
 */
import ExcelJS from 'exceljs';
import { format } from 'numfmt';
import type { CellValue } from '../source.ts';
import { unguardCsvText } from './csv-formula-guard.ts';
import { decodeCellText } from './ooxml-text.ts';

export interface GridCell {
  typed: CellValue;
  formatted: string;
}

const MS_PER_DAY = 86_400_000;
/** 1970-01-01 as an Excel (1900 system) serial number: the epoch ExcelJS converts dates with. */
const UNIX_EPOCH_SERIAL = 25_569;
/** What ExcelJS gives a date cell that has no number format of its own when it saves (numFmtId 14). */
const EXCELJS_DEFAULT_DATE_FORMAT = 'mm-dd-yy';

const T = ExcelJS.ValueType;

export function dateToSerial(d: Date): number {
  return d.getTime() / MS_PER_DAY + UNIX_EPOCH_SERIAL;
}

export function serialToDate(serial: number): Date {
  // Rounded to the millisecond like ExcelJS does, so a value survives a save/load cycle unchanged.
  return new Date(Math.round((serial - UNIX_EPOCH_SERIAL) * MS_PER_DAY));
}

/**
 * ExcelJS's own test for "this number format shows a date" (quoted text and [brackets] removed, then any
 * date/time letter). We must use the same test: ExcelJS turns numbers into Dates on load with it, so a cell
 * we hold in memory must type the same way as the same cell read back from the file.
 */
export function isDateFormat(numFmt: string | undefined): boolean {
  if (!numFmt) return false;
  const stripped = numFmt.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, '');
  return /[ymdhMsb]+/.test(stripped);
}

export function isGeneralFormat(numFmt: string | undefined): boolean {
  return !numFmt || numFmt.toLowerCase() === 'general';
}

/**
 * ISO 8601 from the UTC parts (ExcelJS builds Dates as if the sheet's wall clock were UTC):
 * `2024-03-01`, `2024-03-01T09:30:00`, `.sss` only when milliseconds are non-zero, and a bare time for
 * time-only cells (serial < 1, i.e. a date part of 1899-12-30/31).
 */
export function isoFromDate(d: Date): string | null {
  if (!Number.isFinite(d.getTime())) return null;
  const iso = d.toISOString(); // YYYY-MM-DDTHH:mm:ss.sssZ (years outside 0..9999 get a sign; fine)
  const tIndex = iso.indexOf('T');
  const datePart = iso.slice(0, tIndex);
  const time = iso.slice(tIndex + 1, tIndex + 9);
  const ms = iso.slice(tIndex + 9, tIndex + 13);
  const timeText = ms === '.000' ? time : `${time}${ms}`;
  if (datePart === '1899-12-30' || datePart === '1899-12-31') return timeText;
  if (timeText === '00:00:00') return datePart;
  return `${datePart}T${timeText}`;
}

/** numfmt with a safety net: an odd or unsupported pattern must never break a read. */
export function formatValue(numFmt: string | undefined, value: number | string | boolean): string {
  const pattern = isGeneralFormat(numFmt) ? 'General' : (numFmt as string);
  try {
    return format(pattern, value);
  } catch {
    try {
      return format('General', value);
    } catch {
      return String(value);
    }
  }
}

function numberCell(n: number, numFmt: string | undefined): GridCell | null {
  // A number under a date format is a date to Excel (and to ExcelJS after a reload), so type it as one.
  if (isDateFormat(numFmt)) return dateCell(serialToDate(n), numFmt);
  return { typed: n, formatted: formatValue(numFmt, n) };
}

function dateCell(d: Date, numFmt: string | undefined): GridCell | null {
  const iso = isoFromDate(d);
  if (iso === null) return null;
  const pattern = isGeneralFormat(numFmt) ? EXCELJS_DEFAULT_DATE_FORMAT : numFmt;
  // numfmt is given the serial number, not the Date: a Date would be shifted by the local time zone.
  return { typed: iso, formatted: formatValue(pattern, dateToSerial(d)) };
}

/** Text from the file, with OOXML's `_xHHHH_` escapes undone (CSV text has none: see readCsvCell). */
function textCell(s: string): GridCell | null {
  if (s === '') return null;
  const text = decodeCellText(s);
  return { typed: text, formatted: text };
}

interface RichTextLike {
  richText: { text: string }[];
}

function plainText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && Array.isArray((value as RichTextLike).richText)) {
    return (value as RichTextLike).richText.map((run) => run.text ?? '').join('');
  }
  return value === null || value === undefined ? '' : String(value);
}

/** A formula's cached result, typed like a literal cell of the same kind; no cached result -> empty. */
function resultCell(result: unknown, numFmt: string | undefined): GridCell | null {
  if (result === null || result === undefined) return null;
  if (typeof result === 'number') return Number.isFinite(result) ? numberCell(result, numFmt) : null;
  if (typeof result === 'boolean') return { typed: result, formatted: result ? 'TRUE' : 'FALSE' };
  if (typeof result === 'string') return textCell(result);
  if (result instanceof Date) return dateCell(result, numFmt);
  if (typeof result === 'object' && 'error' in result) {
    const error = String((result as { error: unknown }).error);
    return { typed: error, formatted: error };
  }
  return textCell(plainText(result));
}

/** One ExcelJS cell -> typed + formatted, or null when the cell is empty (merged non-anchor cells included). */
export function readXlsxCell(cell: ExcelJS.Cell): GridCell | null {
  const numFmt = cell.numFmt;
  switch (cell.type) {
    case T.Null:
    case T.Merge: // only the top-left cell of a merge holds the value, as in Excel and Google Sheets
      return null;
    case T.Number:
      return numberCell(cell.value as number, numFmt);
    case T.String:
    case T.SharedString:
      return textCell(plainText(cell.value));
    case T.Date:
      return dateCell(cell.value as Date, numFmt);
    case T.Boolean:
      return { typed: cell.value as boolean, formatted: cell.value ? 'TRUE' : 'FALSE' };
    case T.RichText:
      return textCell(plainText(cell.value));
    case T.Hyperlink:
      return textCell(plainText((cell.value as { text?: unknown }).text));
    case T.Error: {
      const error = String((cell.value as { error: unknown }).error);
      return { typed: error, formatted: error };
    }
    case T.Formula:
      return resultCell(cell.result, numFmt);
    default:
      return textCell(cell.text);
  }
}

const CANONICAL_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * CSV text -> typed value. Only canonical numbers become numbers, so "007", "1,000" and "+5" keep their
 * exact text; `true`/`false` (any case) are booleans; dates stay strings (CSV has no date type).
 */
export function typeCsvText(text: string): CellValue {
  if (text === '') return null;
  if (CANONICAL_NUMBER.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n)) return n;
  }
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  return text;
}

/** A CSV field: a guarded formula-like text loses its marker `'` first (csv-formula-guard.ts). */
export function readCsvCell(field: string): GridCell | null {
  const text = unguardCsvText(field);
  if (text !== field) return { typed: text, formatted: text };
  const typed = typeCsvText(text);
  return typed === null ? null : { typed, formatted: text };
}
