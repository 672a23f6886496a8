/**
 * CSV writer (RFC 4180): CRLF line ends, a header line of the returned fields, fields quoted only when they
 * contain a quote, comma, CR or LF. Values are written as they are (no formula-injection mangling: this is
 * data export, and altering values would corrupt round trips).
 */
import type { CellValue } from '../../sources/source.ts';

export const CSV_TYPE = 'text/csv; charset=utf-8';

const NEEDS_QUOTES = /[",\r\n]/;

function field(v: CellValue): string {
  if (v === null) return '';
  const s = typeof v === 'string' ? v : String(v);
  return NEEDS_QUOTES.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function line(values: CellValue[]): string {
  // A single empty field would make a blank line, which parsers skip: quote it so the record survives.
  if (values.length === 1 && (values[0] === null || values[0] === '')) return '""\r\n';
  let s = '';
  for (let i = 0; i < values.length; i++) s += i === 0 ? field(values[i]!) : `,${field(values[i]!)}`;
  return `${s}\r\n`;
}

export function csv(fields: string[], rows: { values: CellValue[] }[]): string {
  let out = line(fields);
  for (const r of rows) out += line(r.values);
  return out;
}
