/**
 * Excel's structured references (`Orders[Amount]`, `Orders[[#This Row],[Qty]]`, `[@Qty]`, `Orders[#All]`)
 * rewritten as the A1 ranges they name, from the tables' definitions, so a formula parser that knows only A1
 * can evaluate them. String literals are left alone; a reference to a table or column that does not exist
 * becomes `#REF!`, as in Excel.
 */
import { columnLetter } from '../../header.ts';
import type { Area } from '../ooxml/cell-area.ts';
import { quotedEnd } from './formula-text.ts';

export interface TableInfo {
  name: string;
  sheet: string;
  area: Area;
  headerRow: boolean;
  totalsRow: boolean;
  /** Column names, left to right. */
  columns: string[];
}

/** Where the formula is: `[@Col]` and `#This Row` mean this row of the table the formula sits in. */
export interface FormulaPosition {
  sheet: string;
  row: number;
  column: number;
}

const NAME_START = /[A-Za-z_\\\u00C0-\uFFFF]/;
const NAME_CHAR = /[A-Za-z0-9_.\\\u00C0-\uFFFF]/;

export function hasStructuredRefs(formula: string): boolean {
  return formula.includes('[');
}

/** The formula with every structured reference replaced by an A1 reference (sheet-qualified, absolute). */
export function resolveStructuredRefs(
  formula: string,
  at: FormulaPosition,
  tables: readonly TableInfo[],
): string {
  if (!hasStructuredRefs(formula)) return formula;
  let out = '';
  let i = 0;
  while (i < formula.length) {
    const ch = formula[i]!;
    if (ch === '"' || ch === "'") {
      // A text literal, or a quoted sheet name ('My Sheet'!A1): copied whole, brackets inside are not references.
      const end = quotedEnd(formula, i);
      out += formula.slice(i, end);
      i = end;
      continue;
    }
    if (NAME_START.test(ch) && (i === 0 || !NAME_CHAR.test(formula[i - 1]!))) {
      let end = i + 1;
      while (end < formula.length && NAME_CHAR.test(formula[end]!)) end++;
      const name = formula.slice(i, end);
      const table = findTable(tables, name);
      if (formula[end] === '[' && table) {
        const close = bracketEnd(formula, end);
        out += rangeText(table, formula.slice(end + 1, close - 1), at);
        i = close;
        continue;
      }
      out += name;
      i = end;
      continue;
    }
    if (ch === '[') {
      // `[@Col]` or `[Col]` without a table name: the table the formula sits in.
      const close = bracketEnd(formula, i);
      const table = tables.find(
        (t) =>
          t.sheet.toLowerCase() === at.sheet.toLowerCase() &&
          at.row >= t.area.top &&
          at.row <= t.area.bottom &&
          at.column >= t.area.left &&
          at.column <= t.area.right,
      );
      out += table ? rangeText(table, formula.slice(i + 1, close - 1), at) : '#REF!';
      i = close;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

function findTable(tables: readonly TableInfo[], name: string): TableInfo | undefined {
  const lower = name.toLowerCase();
  return tables.find((t) => t.name.toLowerCase() === lower);
}

/** Index after the `]` matching the `[` at `start`; `'` escapes the next character inside column names. */
function bracketEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'") {
      i++;
      continue;
    }
    if (ch === '[') depth++;
    else if (ch === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/** A column name as written inside brackets (`'` escapes `[`, `]`, `#` and `'`). */
function unescapeColumn(text: string): string {
  return text.trim().replace(/'(.)/g, '$1');
}

interface Spec {
  rows: Set<string>;
  columns: string[];
}

/** The inside of `Table[...]`: special items (`#Data`, `#This Row`...), and one column or a column range. */
function parseSpec(inner: string): Spec {
  const spec: Spec = { rows: new Set(), columns: [] };
  const body = inner.trim();
  if (body === '') return spec;
  if (body.startsWith('@')) {
    spec.rows.add('#this row');
    const rest = body.slice(1).trim();
    if (rest !== '') addItems(rest.startsWith('[') ? rest : `[${rest}]`, spec);
    return spec;
  }
  if (!body.startsWith('[')) {
    if (body.startsWith('#')) spec.rows.add(body.toLowerCase());
    else spec.columns.push(unescapeColumn(body));
    return spec;
  }
  addItems(body, spec);
  return spec;
}

/** `[#This Row],[Qty]` or `[Qty]:[Price]`: bracketed items separated by `,` (and one `:` range). */
function addItems(list: string, spec: Spec): void {
  let i = 0;
  while (i < list.length) {
    const ch = list[i]!;
    if (ch === '[') {
      const close = bracketEnd(list, i);
      const item = list.slice(i + 1, close - 1);
      if (item.startsWith('#')) spec.rows.add(item.toLowerCase());
      else spec.columns.push(unescapeColumn(item));
      i = close;
    } else i++;
  }
}

function rangeText(table: TableInfo, inner: string, at: FormulaPosition): string {
  const spec = parseSpec(inner);
  const { area } = table;
  const firstData = area.top + (table.headerRow ? 1 : 0);
  const lastData = area.bottom - (table.totalsRow ? 1 : 0);
  let top = firstData;
  let bottom = lastData;
  const rows = spec.rows;
  if (rows.has('#this row')) {
    if (at.row < firstData || at.row > lastData) return '#VALUE!';
    top = at.row;
    bottom = at.row;
  } else if (rows.has('#all')) {
    top = area.top;
    bottom = area.bottom;
  } else if (rows.size > 0) {
    const parts: [number, number][] = [];
    if (rows.has('#headers') && table.headerRow) parts.push([area.top, area.top]);
    if (rows.has('#data')) parts.push([firstData, lastData]);
    if (rows.has('#totals') && table.totalsRow) parts.push([area.bottom, area.bottom]);
    if (parts.length === 0) return '#REF!';
    top = Math.min(...parts.map((p) => p[0]));
    bottom = Math.max(...parts.map((p) => p[1]));
  }
  let left = area.left;
  let right = area.right;
  if (spec.columns.length > 0) {
    const indexes = spec.columns.map((name) =>
      table.columns.findIndex((c) => c.toLowerCase() === name.toLowerCase()),
    );
    if (indexes.some((n) => n < 0)) return '#REF!';
    left = area.left + Math.min(...indexes);
    right = area.left + Math.max(...indexes);
  }
  if (bottom < top) return '#REF!';
  const sheet = `'${table.sheet.replace(/'/g, "''")}'!`;
  const first = `$${columnLetter(left)}$${top}`;
  if (top === bottom && left === right) return `${sheet}${first}`;
  return `${sheet}${first}:$${columnLetter(right)}$${bottom}`;
}
