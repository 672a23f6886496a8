/**
 * What a written value becomes in the file. JSON types map directly; strings are text unless the key may
 * write formulas (`=...`) or the client asked for `input=user_entered`, in which case we parse the string
 * the way a spreadsheet parses typing: numbers (also `1,234.5`, `$1,234.50`, `12%`), TRUE/FALSE and dates.
 */
import type { CellInput } from './source.ts';

export type ParsedInput =
  | { kind: 'empty' }
  | {
      kind: 'number';
      value: number /** Format a sheet would give the cell, e.g. `0%` for "12%". */;
      numFmt?: string;
    }
  | { kind: 'boolean'; value: boolean }
  | {
      kind: 'date';
      value: Date;
      hasTime: boolean;
      /** A time of day without a date (`09:30:00`): a date system stores it on its day zero. */
      timeOnly: boolean;
      /** The text as given: what is stored where the sheet's date system has no serial for the date. */
      text: string;
      /** Format the cell gets when it has no date format (its column's, say). */
      numFmt?: string;
    }
  | { kind: 'text'; value: string }
  | { kind: 'formula'; formula: string };

export interface InputOptions {
  allowFormulas: boolean;
  userEntered: boolean;
}

export const DATE_FORMAT = 'yyyy-mm-dd';
export const DATE_TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';
const CURRENCY_FORMAT = '"$"#,##0.00';

const PLAIN_NUMBER = /^[+-]?(\d+|\d{1,3}(,\d{3})+)?(\.\d+)?([eE][+-]?\d+)?$/;
const CURRENCY = /^([+-]?)\$([+-]?)(\d+|\d{1,3}(?:,\d{3})+)(\.\d+)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
const ISO_TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;

function plainNumber(text: string): number | null {
  if (!/\d/.test(text) || !PLAIN_NUMBER.test(text)) return null;
  const n = Number(text.replace(/,/g, ''));
  return Number.isFinite(n) ? n : null;
}

/** A calendar-checked UTC date (2024-02-30 is not a date), or null. */
function utcDate(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return date;
}

const millis = (digits: string | undefined): number => (digits ? Number(digits.padEnd(3, '0')) : 0);

/**
 * An ISO 8601 date, date-time or time as the API reads date cells (`2024-03-01`, `2024-03-01T09:30:00`,
 * `09:30:00`; a time is a time of day on day zero, 1899-12-30, as sheets store it), or null.
 */
export function parseIsoDateTime(text: string): ParsedDate | null {
  const code = text.charCodeAt(0);
  if (code < 48 || code > 57) return null;
  const m = ISO_TIME.exec(text);
  if (m) {
    const value = utcDate(1899, 12, 30, Number(m[1]), Number(m[2]), Number(m[3] ?? 0), millis(m[4]));
    return value && { value, hasTime: true, timeOnly: true, text };
  }
  const date = parseDate(text);
  return date && !US_DATE.test(text) ? date : null;
}

/** A date as parsed from text (the date kind of ParsedInput, without the format). */
export type ParsedDate = Omit<Extract<ParsedInput, { kind: 'date' }>, 'kind' | 'numFmt'>;

function parseDate(text: string): ParsedDate | null {
  let m = ISO_DATE.exec(text);
  if (m) {
    const value = utcDate(Number(m[1]), Number(m[2]), Number(m[3]));
    return value && { value, hasTime: false, timeOnly: false, text };
  }
  m = ISO_DATE_TIME.exec(text);
  if (m) {
    const ms = millis(m[7]);
    const value = utcDate(
      Number(m[1]),
      Number(m[2]),
      Number(m[3]),
      Number(m[4]),
      Number(m[5]),
      Number(m[6] ?? 0),
      ms,
    );
    return value && { value, hasTime: true, timeOnly: false, text };
  }
  m = US_DATE.exec(text);
  if (m) {
    const value = utcDate(Number(m[3]), Number(m[1]), Number(m[2]));
    return value && { value, hasTime: false, timeOnly: false, text };
  }
  return null;
}

/** `input=user_entered`: the string as a sheet would store it if a person typed it. */
export function parseUserEntered(raw: string): ParsedInput {
  const text = raw.trim();
  const n = plainNumber(text);
  if (n !== null) return { kind: 'number', value: n };
  if (text.endsWith('%')) {
    const p = plainNumber(text.slice(0, -1));
    if (p !== null) return { kind: 'number', value: p / 100, numFmt: text.includes('.') ? '0.00%' : '0%' };
  }
  const c = CURRENCY.exec(text);
  if (c) {
    const negative = (c[1] === '-') !== (c[2] === '-');
    const value = Number(`${c[3]?.replace(/,/g, '')}${c[4] ?? ''}`);
    return { kind: 'number', value: negative ? -value : value, numFmt: CURRENCY_FORMAT };
  }
  const lower = text.toLowerCase();
  if (lower === 'true' || lower === 'false') return { kind: 'boolean', value: lower === 'true' };
  const date = parseDate(text);
  if (date) return { kind: 'date', ...date, text: raw };
  return { kind: 'text', value: raw };
}

export function interpretInput(input: CellInput, options: InputOptions): ParsedInput {
  if (input === null || input === '') return { kind: 'empty' };
  if (typeof input === 'number') return { kind: 'number', value: input };
  if (typeof input === 'boolean') return { kind: 'boolean', value: input };
  // Formulas only for keys allowed to write them; otherwise "=..." is stored as plain text (never run).
  if (options.allowFormulas && input.length > 1 && input.startsWith('='))
    return { kind: 'formula', formula: input.slice(1) };
  if (options.userEntered) return parseUserEntered(input);
  return { kind: 'text', value: input };
}
