/**
 * JSON writer. The text is built by hand, one JSON.stringify per key and value: faster than building objects
 * and serialising them, and any header name ("__proto__", "constructor", "", "a.b") is just a string key.
 */
import type { CellValue } from '../../sources/source.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonValue(v: CellValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  return v ? 'true' : 'false';
}

/**
 * `"name":` per field, computed once per response and reused for every row.
 * For JSONP (`script`), the text is evaluated as a JavaScript object literal, where a `"__proto__":` key sets
 * the prototype instead of creating a key (and silently drops the value). Only a computed key
 * `["__proto__"]:` creates an own property there, so that one key is written that way: valid JavaScript,
 * though no longer strict JSON.
 */
export function keyPrefixes(fields: string[], script = false): string[] {
  return fields.map((f) => (script && f === '__proto__' ? '["__proto__"]:' : `${JSON.stringify(f)}:`));
}

export function jsonObject(prefixes: string[], values: CellValue[]): string {
  let s = '{';
  for (let i = 0; i < prefixes.length; i++) {
    if (i > 0) s += ',';
    s += prefixes[i]! + jsonValue(values[i] ?? null);
  }
  return `${s}}`;
}

/** Shape A (bare array) when `meta` is null, shape B `{data, meta:{total,limit,offset}}` otherwise. */
export function jsonList(
  fields: string[],
  rows: { values: CellValue[] }[],
  meta: PageMeta | null,
  script = false,
): string {
  const prefixes = keyPrefixes(fields, script);
  const data = `[${rows.map((r) => jsonObject(prefixes, r.values)).join(',')}]`;
  if (!meta) return data;
  return `{"data":${data},"meta":${metaJson(meta)}}`;
}

/** Shape B's meta; `rows` (the row number of each returned row) only when asked for (`row_numbers`). */
interface PageMeta {
  total: number;
  limit: number;
  offset: number;
  rows?: number[];
  /** An aggregate's: the rows its groups were made of. */
  matched?: number;
}

function metaJson(meta: PageMeta): string {
  const rows = meta.rows ? `,"rows":[${meta.rows.join(',')}]` : '';
  const matched = meta.matched !== undefined ? `,"matched":${meta.matched}` : '';
  return `{"total":${meta.total},"limit":${meta.limit},"offset":${meta.offset}${rows}${matched}}`;
}

/**
 * Each whole row's UTF-8 JSON bytes, per snapshot array, filled in as rows are served: the same rows are
 * asked for again and again (pages, polls), and a snapshot never changes, so the bytes never go stale.
 */
const wholeRowBytes = new WeakMap<unknown[][], Buffer[]>();
const COMMA = Buffer.from(',');
const OPEN_ARRAY = Buffer.from('[');
const CLOSE_ARRAY = Buffer.from(']');
const OPEN_DATA = Buffer.from('{"data":[');

/**
 * The JSON list as bytes, ready for the socket. With `wholeRowsOf` (every row is the whole header in header
 * order) each row is encoded once per snapshot and a page is one memory copy of cached pieces.
 */
export function jsonListBytes(
  fields: string[],
  rows: { index: number; values: CellValue[] }[],
  meta: PageMeta | null,
  wholeRowsOf?: unknown[][],
): Buffer {
  const prefixes = keyPrefixes(fields);
  let cache: Buffer[] | undefined;
  if (wholeRowsOf) {
    cache = wholeRowBytes.get(wholeRowsOf);
    if (!cache) {
      cache = [];
      wholeRowBytes.set(wholeRowsOf, cache);
    }
  }
  const pieces: Buffer[] = [meta ? OPEN_DATA : OPEN_ARRAY];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (i > 0) pieces.push(COMMA);
    let bytes = cache?.[r.index - 1];
    if (!bytes) {
      bytes = Buffer.from(jsonObject(prefixes, r.values));
      if (cache) cache[r.index - 1] = bytes;
    }
    pieces.push(bytes);
  }
  pieces.push(meta ? Buffer.from(`],"meta":${metaJson(meta)}}`) : CLOSE_ARRAY);
  return Buffer.concat(pieces);
}

export function jsonOne(fields: string[], values: CellValue[], script = false): string {
  return jsonObject(keyPrefixes(fields, script), values);
}

/**
 * A row as a real object, for callers that need one (e.g. webhooks). Plain assignment of "__proto__" would
 * set the prototype instead of creating a key, so that one name goes through defineProperty.
 */
export function rowObject(fields: string[], values: CellValue[]): Record<string, CellValue> {
  const o: Record<string, CellValue> = {};
  for (let i = 0; i < fields.length; i++) {
    const k = fields[i]!;
    const v = values[i] ?? null;
    if (k === '__proto__') {
      Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    } else {
      o[k] = v;
    }
  }
  return o;
}
