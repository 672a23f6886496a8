/**
 * Cell values of local workbooks as the API returns them: a typed JSON value plus the text the sheet displays.
 * Number formats decide what is a date; formatting goes through numfmt so `"$"#,##0.00`, `m/d/yyyy`, `0%`
 * render the way Excel shows them. A CSV field is typed from its text alone (CSV has no cell types).
 */
import { format } from 'numfmt';
import type { CellValue } from '../source.ts';
import type { GridCell } from '../tab.ts';
import { unguardCsvText } from './csv-formula-guard.ts';

/**
 * `text` without its `[...]` parts, as `text.replace(/\[[^\]]*]/g, '')` would give it, in one pass: a `[` without
 * a `]` after it ends the search, as no later `[` can have one either.
 */
function withoutBrackets(text: string): string {
  let out = '';
  let from = 0;
  for (let open = text.indexOf('['); open !== -1; open = text.indexOf('[', from)) {
    const close = text.indexOf(']', open + 1);
    if (close === -1) break;
    out += text.slice(from, open);
    from = close + 1;
  }
  return out + text.slice(from);
}

/**
 * ExcelJS's own test for "this number format shows a date" (quoted text and [brackets] removed, then any
 * date/time letter). We must use the same test: ExcelJS turns numbers into Dates on load with it, so a cell
 * we hold in memory must type the same way as the same cell read back from the file.
 */
export function isDateFormat(numFmt: string | undefined): boolean {
  if (!numFmt) return false;
  const stripped = withoutBrackets(numFmt).replace(/"[^"]*"/g, '');
  return /[ymdhMsb]+/.test(stripped);
}

export function isGeneralFormat(numFmt: string | undefined): boolean {
  return !numFmt || numFmt.toLowerCase() === 'general';
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
