/**
 * XML writer. Header names can be anything (spaces, leading digits, '<', '', Unicode), so they are never used
 * as element names: every cell is `<field name="…" type="…">value</field>`, which is well-formed for any
 * name and lets clients recover it. `type` (string|number|boolean|null) keeps null apart from empty text.
 *
 *   <rows total="2" limit="100" offset="0">
 *     <row index="1"><field name="Age" type="number">31</field><field name="Notes" type="null"/></row>
 *   </rows>
 */
import type { CellValue } from '../../sources/source.ts';

export const XML_TYPE = 'application/xml; charset=utf-8';

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>\n';

/**
 * Characters XML 1.0 forbids (C0 controls other than tab/LF/CR, U+FFFE, U+FFFF, unpaired surrogates)
 * become U+FFFD. In attributes, tab/LF/CR are written as character references, since attribute-value
 * normalisation would otherwise turn them into spaces; CR is escaped in text too (line-end normalisation).
 */
const TEXT_SPECIAL =
  /[&<>"'\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ATTR_SPECIAL =
  /[&<>"'\t\n\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

const replace = (c: string): string => ENTITIES[c] ?? '\uFFFD';

export function escapeText(s: string): string {
  return s.replace(TEXT_SPECIAL, replace);
}

export function escapeAttr(s: string): string {
  return s.replace(ATTR_SPECIAL, replace);
}

function fieldXml(name: string, v: CellValue): string {
  const attr = `<field name="${escapeAttr(name)}" type="`;
  if (v === null) return `${attr}null"/>`;
  if (typeof v === 'string') return `${attr}string">${escapeText(v)}</field>`;
  if (typeof v === 'number') return `${attr}number">${String(v)}</field>`;
  return `${attr}boolean">${v ? 'true' : 'false'}</field>`;
}

function rowXml(fields: string[], index: number, values: CellValue[]): string {
  let s = `<row index="${index}">`;
  for (let i = 0; i < fields.length; i++) s += fieldXml(fields[i]!, values[i] ?? null);
  return `${s}</row>`;
}

export function xmlList(
  fields: string[],
  rows: { index: number; values: CellValue[] }[],
  meta: { total: number; limit: number; offset: number; matched?: number },
): string {
  const matched = meta.matched !== undefined ? ` matched="${meta.matched}"` : '';
  let out = `${PROLOG}<rows total="${meta.total}" limit="${meta.limit}" offset="${meta.offset}"${matched}>\n`;
  for (const r of rows) out += `  ${rowXml(fields, r.index, r.values)}\n`;
  return `${out}</rows>\n`;
}

export function xmlOne(fields: string[], index: number, values: CellValue[]): string {
  return `${PROLOG}${rowXml(fields, index, values)}\n`;
}
