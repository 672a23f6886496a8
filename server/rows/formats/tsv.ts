/**
 * TSV writer (text/tab-separated-values): a header line, LF line ends. TSV has no quoting, so a tab, CR, LF
 * or backslash inside a value is written as `\t`, `\r`, `\n`, `\\` (the common "linear TSV" convention).
 */
import type { CellValue } from '../../sources/source.ts';

export const TSV_TYPE = 'text/tab-separated-values; charset=utf-8';

const SPECIAL = /[\t\n\r\\]/g;
const ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\\': '\\\\' };

function field(v: CellValue): string {
  if (v === null) return '';
  const s = typeof v === 'string' ? v : String(v);
  return s.replace(SPECIAL, (c) => ESCAPES[c]!);
}

function line(values: CellValue[]): string {
  let s = '';
  for (let i = 0; i < values.length; i++) s += i === 0 ? field(values[i]!) : `\t${field(values[i]!)}`;
  return `${s}\n`;
}

export function tsv(fields: string[], rows: { values: CellValue[] }[]): string {
  let out = line(fields);
  for (const r of rows) out += line(r.values);
  return out;
}
