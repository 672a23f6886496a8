/**
 * The pure query engine: validate field names, filter, sort, page and project the rows of one tab.
 * Order of operations is docs/api.md's (List rows): filter, then sort, then offset/limit.
 *
 * Works over row indices, never copying rows: per-column search indexes (match.ts, column-index.ts) and sort
 * orders (sort.ts) are cached per snapshot array in WeakMaps, so a first-time search of a million-row tab
 * answers in a few ms, and a filter result is the list of matching rows.
 */
import { AppError } from '../errors.ts';
import { OwnerCache } from '../lib/owner-cache.ts';
import { runNow, runPaced, STEP_ROWS, type Steps } from '../lib/steps.ts';
import type { CellValue, RowsOnDemand } from '../sources/source.ts';
import { rowCountOf, rowOf, rowsComplete, rowsOwner } from '../sources/tab-rows.ts';
import type { RowsToRender } from './formats/index.ts';
import { matchRowsSteps, stringForm } from './match.ts';
import type { ListQuery, ValuesMode } from './query.ts';
import { columnRanksSteps, type ResolvedSortKey, sortedOrder, sortRows, type ValueMode } from './sort.ts';

/** What the engine needs from a tab; a TabSnapshot satisfies it. */
export interface TabRows {
  header: string[];
  typed: CellValue[][];
  formatted: string[][];
  /** `typed` with formula cells as their formula text, where the source knows formulas. */
  withFormulas?: CellValue[][];
  /** While a tab just read is still making its rows (sources/tab-rows.ts): a plain page reads them as made. */
  readonly onDemand?: RowsOnDemand;
}

/** A list query once `values=formula` has become typed mode over the formula rows. */
type ModeQuery = Omit<ListQuery, 'values'> & { values: ValueMode };

/**
 * `values=formula` is typed mode over the rows that show formulas (a source that knows none shows its
 * typed values): filters, sorts and caches then work on those rows as on any other.
 */
function inMode(tab: TabRows, values: ValuesMode): { rows: TabRows; mode: ValueMode } {
  if (values !== 'formula') return { rows: tab, mode: values };
  const typed = tab.withFormulas ?? tab.typed;
  return { rows: typed === tab.typed ? tab : { ...tab, typed }, mode: 'typed' };
}

/** Rows matching a query, one page of them, ready for an output format. */
export type QueryResult = RowsToRender;

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

/** The column of a header name, or undefined (a `where` says which of its names it lacks: where/evaluate.ts). */
export function columnOf(tab: Pick<TabRows, 'header'>, field: string): number | undefined {
  return headerIndex(tab.header).get(field);
}

export function column(tab: Pick<TabRows, 'header'>, field: string, parameter: string): number {
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
  const t = rowOf(tab, row)?.[col] ?? null;
  if (mode === 'typed') return t;
  const f = tab.formatted[row]?.[col];
  if (f === undefined) return t === null ? null : stringForm(t);
  return t === null && f === '' ? null : f;
}

/** Rows passing every filter (AND), ascending. May be shared with the caches: never changed. */
type Filtered = Uint32Array;

/** Recent filter results per snapshot array: a client paging through a search, or a dashboard polling the
 * same query, pays for the search once. Snapshots are immutable, so entries never go stale. */
const FILTER_CACHE_SIZE = 32;
const filterCache = new OwnerCache<unknown[][], string, Filtered | null>(FILTER_CACHE_SIZE);

function cachedFilter(tab: TabRows, q: ModeQuery, filterCols: number[]): Filtered | null {
  if (q.filters.length === 0) return null;
  return filterCache.get(filterOwner(tab, q), filterKey(q, filterCols), () =>
    runNow(filterRowsSteps(tab, q, filterCols)),
  );
}

const filterOwner = (tab: TabRows, q: ModeQuery): unknown[][] =>
  q.values === 'typed' ? tab.typed : tab.formatted;

const filterKey = (q: ModeQuery, filterCols: number[]): string =>
  JSON.stringify(q.filters.map((f, i) => [filterCols[i], f.exact, f.value]));

/** The rows in both ascending lists. */
function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(Math.min(a.length, b.length));
  let k = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out[k++] = a[i]!;
      i++;
      j++;
    }
  }
  return out.subarray(0, k);
}

/** Rows passing every filter (AND), or null when nothing filters; a step at a time (lib/steps.ts). */
function* filterRowsSteps(tab: TabRows, q: ModeQuery, filterCols: number[]): Steps<Filtered | null> {
  const mode = q.values;
  const owner = mode === 'typed' ? tab.typed : tab.formatted;
  const read = (row: number, col: number): CellValue => cell(tab, row, col, mode);
  let hits: Filtered | null = null;
  for (let i = 0; i < q.filters.length; i++) {
    const f = q.filters[i]!;
    // An empty substring matches everything: skip it rather than scanning.
    if (!f.exact && f.value === '') continue;
    const own = yield* matchRowsSteps({
      owner,
      rowCount: tab.typed.length,
      col: filterCols[i]!,
      read,
      exact: f.exact,
      value: f.value,
    });
    hits = hits === null ? own : intersect(hits, own);
  }
  return hits;
}

/** Work one query shares with the next that asks the same of a snapshot, while it is under way. */
const preparing = new OwnerCache<object, string, Promise<unknown>>(FILTER_CACHE_SIZE);

/**
 * What a query's first run over a snapshot builds, built beforehand a step at a time: its search filters' rows
 * (each column's search index on the way) and each sort key's ranks. A million-row tab's first search or sort
 * then lets other requests run between its steps instead of holding the service's thread for its whole second,
 * and `runQuery`/`filteredRows` find it cached. Requests asking the same meanwhile wait for the same work. A
 * name the tab lacks is left to them to refuse; a tab of fewer rows than a step has nothing worth pacing.
 */
export async function prepareQuery(
  source: TabRows,
  query: Pick<ListQuery, 'filters' | 'sort' | 'values'>,
): Promise<void> {
  const { rows: tab, mode } = inMode(source, query.values);
  if (query.filters.length === 0 && query.sort.length === 0) return;
  await rowsComplete([tab]);
  if (tab.typed.length < STEP_ROWS) return;
  const filterCols = query.filters.map((f) => columnOf(tab, f.field));
  const sortCols = query.sort.map((k) => columnOf(tab, k.field));
  if (filterCols.includes(undefined) || sortCols.includes(undefined)) return;
  const q = { ...query, values: mode } as ModeQuery;
  const cols = filterCols as number[];
  const owner = filterOwner(tab, q);
  const key = filterKey(q, cols);
  if (q.filters.length > 0 && filterCache.peek(owner, key) === undefined) {
    const hits = await shared(owner, `filter ${key}`, () => runPaced(filterRowsSteps(tab, q, cols)));
    filterCache.get(owner, key, () => hits as Filtered | null);
  }
  for (const col of new Set(sortCols as number[])) {
    await shared(owner, `ranks ${col}`, () => runPaced(columnRanksSteps(tab, col, mode)));
  }
}

/** `work()`'s promise, or the one a request asking the same started; a failure is not kept. */
function shared<T>(owner: object, key: string, work: () => Promise<T>): Promise<T> {
  const promise = preparing.get(owner, key, () => {
    const started = work();
    started.catch(() => preparing.forget(owner, key, started));
    return started;
  });
  return promise as Promise<T>;
}

/** At most one row in FEW_HITS of the tab: the hits are sorted alone (k log k), not found along the tab's order. */
const FEW_HITS = 256;

/** The page of `hits` in the order of `order` (a permutation of every row). */
function pageInOrder(
  order: Uint32Array,
  hits: Filtered,
  rowCount: number,
  offset: number,
  end: number,
): number[] {
  const marks = new Uint8Array(rowCount);
  for (let i = 0; i < hits.length; i++) marks[hits[i]!] = 1;
  // Walk rows in sorted order until the page is full (or every hit is seen): filtering a stable sorted order
  // gives the same result as sorting the filtered rows.
  const picked: number[] = [];
  const last = Math.min(end, hits.length);
  let seen = 0;
  for (let i = 0; i < order.length && seen < last; i++) {
    const row = order[i]!;
    if (marks[row] === 0) continue;
    if (seen >= offset) picked.push(row);
    seen++;
  }
  return picked;
}

/** The rows of the page, in final order, and how many rows match in all. */
function pageRows(
  tab: TabRows,
  hits: Filtered | null,
  sortKeys: ResolvedSortKey[],
  q: ModeQuery,
): { total: number; picked: number[] } {
  const n = rowCountOf(tab);
  const end = q.offset + q.limit;
  if (hits === null) {
    const order = sortKeys.length > 0 ? sortedOrder(tab, sortKeys, q.values) : null;
    const picked: number[] = [];
    for (let i = q.offset; i < end && i < n; i++) picked.push(order ? order[i]! : i);
    return { total: n, picked };
  }
  const total = hits.length;
  const page = (rows: Uint32Array) =>
    Array.from(rows.subarray(Math.min(q.offset, total), Math.min(end, total)));
  if (sortKeys.length === 0) return { total, picked: page(hits) };
  // A few hits sort faster by themselves than by walking the whole tab's order.
  if (total <= n / FEW_HITS) return { total, picked: page(sortRows(tab, hits, sortKeys, q.values)) };
  return { total, picked: pageInOrder(sortedOrder(tab, sortKeys, q.values), hits, n, q.offset, end) };
}

function resolveFields(tab: TabRows, fields: string[] | null): { names: string[]; cols: number[] } {
  if (fields === null) return { names: tab.header.slice(), cols: tab.header.map((_, i) => i) };
  return { names: fields.slice(), cols: fields.map((f) => column(tab, f, 'fields')) };
}

/**
 * `whereHits`: the rows the query's `where` keeps (where/where-hits.ts, found beforehand because a large tab's
 * is paced); ANDed with the search filters.
 */
/**
 * The rows (0-based, ascending) that pass a query's `search` filters and the `where` whose rows are `whereHits`,
 * on typed values; null when nothing filters (every row). Unknown search fields are 400 `unknown_field`.
 */
export function filteredRows(
  tab: TabRows,
  query: Pick<ListQuery, 'filters'>,
  whereHits?: Uint32Array,
): Uint32Array | null {
  const q = { ...query, values: 'typed' } as ModeQuery;
  const filterCols = q.filters.map((f) => column(tab, f.field, f.exact ? 'search_exact' : 'search'));
  const filtered = cachedFilter(tab, q, filterCols);
  return whereHits ? (filtered ? intersect(filtered, whereHits) : whereHits) : filtered;
}

export function runQuery(source: TabRows, query: ListQuery, whereHits?: Uint32Array): QueryResult {
  const { rows: tab, mode } = inMode(source, query.values);
  const q: ModeQuery = { ...query, values: mode };
  // Validate every name before doing any work, in parameter order: search/search_exact, sort, fields.
  const filterCols = q.filters.map((f) => column(tab, f.field, f.exact ? 'search_exact' : 'search'));
  const sortKeys: ResolvedSortKey[] = q.sort.map((k) => ({
    col: column(tab, k.field, 'sort'),
    descending: k.descending,
  }));
  const { names, cols } = resolveFields(tab, q.fields);

  if (query.where && !whereHits) throw new Error('runQuery: a where needs its rows found first');
  const filtered = cachedFilter(tab, q, filterCols);
  const hits = whereHits ? (filtered ? intersect(filtered, whereHits) : whereHits) : filtered;
  const { total, picked } = pageRows(tab, hits, sortKeys, q);

  return {
    total,
    fields: names,
    rows: picked.map((row) => ({
      index: row + 1,
      // Whole typed rows are the snapshot's own arrays (read-only): no copy per request.
      values:
        q.fields === null && mode === 'typed' ? rowOf(tab, row)! : cols.map((c) => cell(tab, row, c, mode)),
    })),
    ...(q.fields === null ? { wholeRowsOf: mode === 'typed' ? rowsOwner(tab) : tab.formatted } : {}),
  };
}

/** One row (1-based API index) projected like a list row. Throws unknown_field, then row_not_found. */
export function projectRow(
  source: TabRows,
  index: number,
  fields: string[] | null,
  values: ValuesMode,
): { fields: string[]; values: CellValue[] } {
  const { rows: tab, mode } = inMode(source, values);
  const { names, cols } = resolveFields(tab, fields);
  if (!Number.isInteger(index) || index < 1 || index > rowCountOf(tab)) {
    throw new AppError('row_not_found', `Row ${index} does not exist.`, { row: index });
  }
  return { fields: names, values: cols.map((c) => cell(tab, index - 1, c, mode)) };
}
