/**
 * One `<row>` element's cells, parsed from and written back to text. Cells the write does not name keep
 * their exact text; the row's own attributes are kept except `spans`, a hint that may no longer be right.
 */
import { columnLetter } from '../../header.ts';
import { parseCellRef } from './cell-ref.ts';
import { getAttr, setAttr } from './xml-text.ts';

export interface CellSlot {
  column: number;
  xml: string;
}

export interface ParsedRow {
  /** The start tag, `spans` removed. */
  start: string;
  cells: CellSlot[];
  /** Anything in the row that is not a cell (e.g. extLst), kept after the cells. */
  extra: string;
}

export function parseRow(xml: string, prefix: string): ParsedRow {
  const startTag = /^<[^>]*>/.exec(xml)?.[0] ?? `<${prefix}row>`;
  const selfClosing = startTag.endsWith('/>');
  const start = setAttr(selfClosing ? `${startTag.slice(0, -2).trimEnd()}>` : startTag, 'spans', undefined);
  const cells: CellSlot[] = [];
  let extra = '';
  if (!selfClosing) {
    const body = xml.slice(startTag.length, xml.lastIndexOf('</'));
    const p = prefix.replace('.', '\\.');
    const cell = new RegExp(`<${p}c(?=[\\s/>])[^>]*?(?:\\/>|>[\\s\\S]*?<\\/${p}c>)`, 'g');
    let column = 0;
    let last = 0;
    for (const m of body.matchAll(cell)) {
      const tag = /^<[^>]*>/.exec(m[0])?.[0] ?? '';
      const ref = getAttr(tag, 'r');
      const at = ref === undefined ? undefined : parseCellRef(ref);
      column = at ? at.column : column + 1;
      cells.push({ column, xml: m[0] });
      extra += body.slice(last, m.index).trim();
      last = (m.index ?? 0) + m[0].length;
    }
    extra += body.slice(last).trim();
  }
  return { start, cells, extra };
}

export function rowToXml(row: ParsedRow, prefix: string): string {
  if (row.cells.length === 0 && row.extra === '') return row.start.replace(/>$/, '/>');
  return `${row.start}${row.cells.map((c) => c.xml).join('')}${row.extra}</${prefix}row>`;
}

/** The cell in `column`, or undefined. */
export function cellAt(row: ParsedRow, column: number): CellSlot | undefined {
  return row.cells.find((c) => c.column === column);
}

/** Put (or, with null, remove) the cell of `column`, keeping the cells in column order. */
export function putCell(row: ParsedRow, column: number, xml: string | null): void {
  const at = row.cells.findIndex((c) => c.column >= column);
  const existing = at >= 0 && row.cells[at]?.column === column;
  if (xml === null) {
    if (existing) row.cells.splice(at, 1);
    return;
  }
  const slot = { column, xml };
  if (existing) row.cells[at] = slot;
  else if (at < 0) row.cells.push(slot);
  else row.cells.splice(at, 0, slot);
}

export const cellRef = (column: number, row: number) => `${columnLetter(column)}${row}`;

/** The row with a new number: the row's `r` and every cell's `r` (cells keep their columns). */
export function renumberRow(row: ParsedRow, number: number): void {
  row.start = setAttr(row.start, 'r', String(number));
  for (const cell of row.cells) {
    const tag = /^<[^>]*>/.exec(cell.xml)?.[0] as string;
    cell.xml = setAttr(tag, 'r', cellRef(cell.column, number)) + cell.xml.slice(tag.length);
  }
}

/** A cell's start tag (`<c ...>` or `<x:c .../>`), not `<col>` or `<cfvo>`. */
const CELL_START = /<(?:[\w.-]+:)?c(?=[\s/>])[^>]*>/g;
/** A cell reference in the form every writer uses: double quotes, upper-case column letters. */
const CELL_R = /\sr="([A-Z]{1,3})\d+"/;

/**
 * A row's XML with a new number: what `parseRow`, `renumberRow` and `rowToXml` give, edited in place. A delete
 * renumbers every row below it, and taking each row apart cost most of a large delete. Null when some cell
 * has no reference of the usual form (the caller takes the row apart then).
 */
export function movedRowXml(xml: string, number: number): string | null {
  const common = movedCommonRow(xml, number);
  if (common !== undefined) return common;
  const startTag = /^<[^>]*>/.exec(xml)?.[0];
  if (!startTag || startTag.endsWith('/>')) return null;
  let usual = true;
  const cells = xml.slice(startTag.length).replace(CELL_START, (tag) => {
    const ref = CELL_R.exec(tag);
    if (!ref) {
      usual = false;
      return tag;
    }
    return `${tag.slice(0, ref.index)} r="${ref[1]}${number}"${tag.slice(ref.index + ref[0].length)}`;
  });
  if (!usual) return null;
  return setAttr(setAttr(startTag, 'spans', undefined), 'r', String(number)) + cells;
}

/**
 * `movedRowXml` for the row every writer makes (`<row r="12" ...>` without a prefix, each cell starting
 * `<c r="B12"`), by one walk of the text with `indexOf` instead of a pattern and a callback per cell: a delete
 * high in a million-row sheet moves hundreds of thousands of rows. Undefined for any other row (the general
 * way then), so it only ever gives what that way gives.
 */
function movedCommonRow(xml: string, number: number): string | null | undefined {
  if (!xml.startsWith('<row r="')) return undefined;
  const startEnd = xml.indexOf('>');
  const close = xml.indexOf('"', 8);
  if (startEnd < 0 || close < 0 || close > startEnd || !allDigits(xml, 8, close)) return undefined;
  if (xml.charCodeAt(startEnd - 1) === SLASH) return null;
  const startRest = xml.slice(close + 1, startEnd + 1);
  if (startRest.includes('spans') || /\sr\s*=/.test(startRest)) return undefined;
  const digits = String(number);
  let out = `<row r="${digits}"${startRest}`;
  let copied = startEnd + 1;
  for (let at = xml.indexOf('<c', copied); at >= 0; at = xml.indexOf('<c', at + 2)) {
    const next = xml.charCodeAt(at + 2);
    if (next !== SPACE) {
      // `<charset` and the like are no cells; a cell written another way is the general way's.
      if (next === SLASH || next === GT || next === TAB || next === LF || next === CR) return undefined;
      continue;
    }
    if (!xml.startsWith('r="', at + 3)) return undefined;
    let p = at + 6;
    const letters = p;
    while (p < xml.length && xml.charCodeAt(p) >= 65 && xml.charCodeAt(p) <= 90) p++;
    if (p === letters || p - letters > 3) return undefined;
    const rowDigits = p;
    const quote = xml.indexOf('"', p);
    if (quote < 0 || quote === rowDigits || !allDigits(xml, rowDigits, quote)) return undefined;
    out += xml.slice(copied, rowDigits) + digits;
    copied = quote;
    at = quote - 2;
  }
  return out + xml.slice(copied);
}

const SLASH = 47;
const GT = 62;
const SPACE = 32;
const TAB = 9;
const LF = 10;
const CR = 13;

function allDigits(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}
