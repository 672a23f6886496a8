/**
 * The pure query engine: validate field names, filter, sort, page and project the rows of one tab.
 * Order of operations is the contract's: filter, then sort, then offset/limit.
 *
 * Works over row indices, never copying rows: per-column string forms (for search) and sort orders are
 * cached per snapshot array in WeakMaps, so a 100k-row tab answers search+sort+limit in a few ms.
 */
import { AppError } from '../errors.ts';
import type { CellValue } from '../sources/source.ts';
import type { ListQuery } from './query-params.ts';
import { type ResolvedSortKey, sortedOrder, type ValueMode } from './sort.ts';

/** What the engine needs from a tab; a TabSnapshot satisfies it. */
export interface TabRows {
  header: string[];
  typed: CellValue[][];
  formatted: string[][];
}

export interface QueryResult {
  /** Rows matching the filters, before paging. */
  total: number;
  /** The returned columns, in output order. */
  fields: string[];
  /** `values` follow `fields`; `index` is the 1-based API row number. */
  rows: { index: number; values: CellValue[] }[];
}

const headerCache = new WeakMap<string[], Map<string, number>>();

/** Field name -> column. A Map, so names like "__proto__" or "constructor" are plain keys. */
function headerIndex(header: string[]): Map<string, number> {
  let map = headerCache.get(header);
  if (!map) {
    map = new Map();
    for (let i = 0; i < header.length; i++) if (!map.has(header[i]!)) map.set(header[i]!, i);
    headerCache.set(header, map);
  }
  return map;
}

function column(tab: TabRows, field: string, parameter: string): number {
  const col = headerIndex(tab.header).get(field);
  if (col === undefined) {
    throw new AppError(
      'unknown_field',
      `Unknown field "${field}" in ${parameter}. Field names are case-sensitive and must match the header.`,
      { field },
    );
  }
  return col;
}

/**
 * A cell as returned. Formatted mode returns the displayed text, and null for an empty cell, so clients can
 * tell an empty cell from a cell that displays "".
 */
function cell(tab: TabRows, row: number, col: number, mode: ValueMode): CellValue {
  const t = tab.typed[row]?.[col] ?? null;
  if (mode === 'typed') return t;
  const f = tab.formatted[row]?.[col];
  if (f === undefined) return t === null ? null : stringForm(t);
  return t === null && f === '' ? null : f;
}

/** The string a search matches against: numbers via String(n), booleans true/false, empty as ''. */
function stringForm(v: CellValue): string {
  if (v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

const exactForms = new WeakMap<object, Map<number, string[]>>();
const lowerForms = new WeakMap<object, Map<number, string[]>>();

/** String forms of one column, computed on first use and cached per snapshot array (typed or formatted). */
function forms(tab: TabRows, col: number, mode: ValueMode, lower: boolean): string[] {
  const owner = mode === 'typed' ? tab.typed : tab.formatted;
  const cache = lower ? lowerForms : exactForms;
  let perCol = cache.get(owner);
  if (!perCol) {
    perCol = new Map();
    cache.set(owner, perCol);
  }
  let out = perCol.get(col);
  if (!out) {
    const n = tab.typed.length;
    out = new Array<string>(n);
    for (let r = 0; r < n; r++) {
      const s = stringForm(cell(tab, r, col, mode));
      out[r] = lower ? s.toLowerCase() : s;
    }
    perCol.set(col, out);
  }
  return out;
}

interface CompiledFilter {
  forms: string[];
  needle: string;
  exact: boolean;
}

function matches(filters: CompiledFilter[], row: number): boolean {
  for (const f of filters) {
    const s = f.forms[row]!;
    if (f.exact ? s !== f.needle : !s.includes(f.needle)) return false;
  }
  return true;
}

function resolveFields(tab: TabRows, fields: string[] | null): { names: string[]; cols: number[] } {
  if (fields === null) return { names: tab.header.slice(), cols: tab.header.map((_, i) => i) };
  return { names: fields.slice(), cols: fields.map((f) => column(tab, f, 'fields')) };
}

export function runQuery(tab: TabRows, q: ListQuery): QueryResult {
  const mode = q.values;
  // Validate every name before doing any work, in parameter order: search/search_exact, sort, fields.
  const filterCols = q.filters.map((f) => column(tab, f.field, f.exact ? 'search_exact' : 'search'));
  const sortKeys: ResolvedSortKey[] = q.sort.map((k) => ({
    col: column(tab, k.field, 'sort'),
    descending: k.descending,
  }));
  const { names, cols } = resolveFields(tab, q.fields);

  const compiled: CompiledFilter[] = [];
  q.filters.forEach((f, i) => {
    // An empty substring matches everything: skip it rather than scanning.
    if (!f.exact && f.value === '') return;
    compiled.push({
      forms: forms(tab, filterCols[i]!, mode, !f.exact),
      needle: f.exact ? f.value : f.value.toLowerCase(),
      exact: f.exact,
    });
  });

  const n = tab.typed.length;
  const order = sortKeys.length > 0 ? sortedOrder(tab, sortKeys, mode) : null;
  const end = q.offset + q.limit;
  const picked: number[] = [];
  let total: number;

  if (compiled.length === 0) {
    total = n;
    for (let i = q.offset; i < end && i < n; i++) picked.push(order ? order[i]! : i);
  } else {
    // Walk rows in final order (the cached sort order, or sheet order): filtering a stable sorted order
    // gives the same result as sorting the filtered rows. Count all matches, keep only the page.
    total = 0;
    for (let i = 0; i < n; i++) {
      const row = order ? order[i]! : i;
      if (!matches(compiled, row)) continue;
      if (total >= q.offset && total < end) picked.push(row);
      total++;
    }
  }

  return {
    total,
    fields: names,
    rows: picked.map((row) => ({ index: row + 1, values: cols.map((c) => cell(tab, row, c, mode)) })),
  };
}

/** One row (1-based API index) projected like a list row. Throws unknown_field, then row_not_found. */
export function projectRow(
  tab: TabRows,
  index: number,
  fields: string[] | null,
  values: ValueMode,
): { fields: string[]; values: CellValue[] } {
  const { names, cols } = resolveFields(tab, fields);
  if (!Number.isInteger(index) || index < 1 || index > tab.typed.length) {
    throw new AppError('row_not_found', `Row ${index} does not exist.`, { row: index });
  }
  return { fields: names, values: cols.map((c) => cell(tab, index - 1, c, values)) };
}
