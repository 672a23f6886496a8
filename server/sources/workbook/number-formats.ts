/**
 * The text a workbook cell displays, computed when someone asks for it (`?values=formatted`, a formatted search)
 * rather than for every cell when a file is read: a cell keeps a small format code, and the text comes from its
 * typed value and that code. Numbers and dates go through numfmt, so `"$"#,##0.00`, `m/d/yyyy` and `0%` render
 * the way Excel shows them.
 */

import { parseIsoDateTime } from '../input.ts';
import { EXCEL_1900 } from '../serial-dates.ts';
import type { CellValue } from '../source.ts';
import { formatValue, isGeneralFormat } from './values.ts';

/** Text, errors and empty cells display their value as it is. */
export const AS_IS = 0;
/** Booleans display TRUE / FALSE. */
export const BOOLEAN = 1;
/** Codes from here on are a number format: `numberFormats[code - FIRST_NUMBER_FORMAT]`. */
export const FIRST_NUMBER_FORMAT = 2;

/** What a date cell without a number format of its own shows (numFmtId 14, as ExcelJS and Excel save it). */
export const DEFAULT_DATE_FORMAT = 'mm-dd-yy';

/** The format codes of one tab: number formats numbered as they are first met. */
export class NumberFormatTable {
  /** The number formats' patterns, by code - FIRST_NUMBER_FORMAT. */
  readonly patterns: string[];
  readonly #codes = new Map<string, number>();

  constructor(patterns: string[] = []) {
    this.patterns = patterns;
    patterns.forEach((f, i) => {
      this.#codes.set(f, FIRST_NUMBER_FORMAT + i);
    });
  }

  /** The code of a number format (undefined = General). */
  code(pattern: string | undefined): number {
    const key = pattern ?? 'General';
    let code = this.#codes.get(key);
    if (code === undefined) {
      code = FIRST_NUMBER_FORMAT + this.patterns.length;
      this.patterns.push(key);
      this.#codes.set(key, code);
    }
    return code;
  }
}

/** The displayed text of a cell with value `typed` and format code `code` (numberFormats: the tab's table). */
export function displayText(typed: CellValue, code: number, numberFormats: readonly string[]): string {
  if (typed === null) return '';
  if (code === AS_IS) return String(typed);
  if (code === BOOLEAN) return typed ? 'TRUE' : 'FALSE';
  const pattern = numberFormats[code - FIRST_NUMBER_FORMAT];
  if (typeof typed === 'number') return formatNumber(pattern, typed);
  if (typeof typed === 'string') {
    const serial = displaySerial(typed);
    return serial === null ? typed : formatNumber(pattern, serial);
  }
  return String(typed);
}

/**
 * The serial numfmt shows as a date cell's ISO text. numfmt renders serials as Excel's 1900 system does (its
 * 1900-02-29 included), so this is that system's serial whatever the workbook's: a 1904 workbook's dates are
 * read to ISO text first, and display the same.
 */
function displaySerial(iso: string): number | null {
  const date = parseIsoDateTime(iso);
  return date && EXCEL_1900.serial(date.value, date.timeOnly);
}

/** Formatted text per format and value: columns repeat values (quantities, dates), and numfmt is the cost. */
const formatted = new Map<string, Map<number, string>>();
const CACHE_PER_FORMAT = 50_000;

export function formatNumber(pattern: string | undefined, n: number): string {
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
