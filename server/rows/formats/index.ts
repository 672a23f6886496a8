/**
 * The output formats, registered by name in one table: each says its content type and how it writes a list
 * and a single row. Writers get rows as arrays in `fields` order and return the whole body (pages are at most
 * 1000 rows). A new format is one entry here; `?format=` accepts exactly the names of this table.
 */
import type { CellValue } from '../../sources/source.ts';
import { CSV_TYPE, csv } from './csv.ts';
import { JSON_TYPE, jsonList, jsonListBytes, jsonOne } from './json.ts';
import { JSONP_TYPE, jsonp } from './jsonp.ts';
import { TSV_TYPE, tsv } from './tsv.ts';
import { XML_TYPE, xmlList, xmlOne } from './xml.ts';

export { rowObject } from './json.ts';

export interface Rendered {
  contentType: string;
  /** JSON lists come as ready-encoded bytes (see jsonListBytes); everything else as text. */
  body: string | Buffer;
}

/** A page of rows to write (what the query engine returns). */
export interface RowsToRender {
  /** Rows matching the filters, before paging. */
  total: number;
  /** The returned columns, in output order. */
  fields: string[];
  /** `values` follow `fields`; `index` is the 1-based API row number. */
  rows: { index: number; values: CellValue[] }[];
  /**
   * The immutable snapshot array the rows were read from, when every row holds the whole header in header
   * order: renderers may then cache each row's text per snapshot (see json.ts).
   */
  wholeRowsOf?: unknown[][];
  /** An aggregate's: the rows its groups were made of (shape B's `meta.matched`). */
  matched?: number;
}

export interface ListOptions {
  callback: string | null;
  meta: boolean;
  rowNumbers?: boolean;
  limit: number;
  offset: number;
}

export interface OneRow {
  index: number;
  fields: string[];
  values: CellValue[];
}

interface OutputFormatWriter {
  contentType: string;
  list(rows: RowsToRender, options: ListOptions): string | Buffer;
  one(row: OneRow, callback: string | null): string;
}

function requireCallback(callback: string | null): string {
  // parseListQuery guarantees a callback for jsonp; this guards direct callers.
  if (!callback) throw new Error('jsonp output needs a callback');
  return callback;
}

const pageMeta = (r: RowsToRender, o: ListOptions) => ({
  total: r.total,
  limit: o.limit,
  offset: o.offset,
  ...(o.rowNumbers ? { rows: r.rows.map((row) => row.index) } : {}),
  ...(r.matched !== undefined ? { matched: r.matched } : {}),
});

const OUTPUT_FORMATS = {
  json: {
    contentType: JSON_TYPE,
    list: (r, o) => jsonListBytes(r.fields, r.rows, o.meta ? pageMeta(r, o) : null, r.wholeRowsOf),
    one: (row) => jsonOne(row.fields, row.values),
  },
  csv: {
    contentType: CSV_TYPE,
    list: (r) => csv(r.fields, r.rows),
    one: (row) => csv(row.fields, [row]),
  },
  tsv: {
    contentType: TSV_TYPE,
    list: (r) => tsv(r.fields, r.rows),
    one: (row) => tsv(row.fields, [row]),
  },
  xml: {
    contentType: XML_TYPE,
    list: (r, o) => xmlList(r.fields, r.rows, pageMeta(r, o)),
    one: (row) => xmlOne(row.fields, row.index, row.values),
  },
  jsonp: {
    contentType: JSONP_TYPE,
    list: (r, o) =>
      jsonp(requireCallback(o.callback), jsonList(r.fields, r.rows, o.meta ? pageMeta(r, o) : null, true)),
    one: (row, callback) => jsonp(requireCallback(callback), jsonOne(row.fields, row.values, true)),
  },
} satisfies Record<string, OutputFormatWriter>;

export type OutputFormat = keyof typeof OUTPUT_FORMATS;

/** The names `?format=` accepts, in the order the docs list them. */
export const OUTPUT_FORMAT_NAMES = Object.keys(OUTPUT_FORMATS) as OutputFormat[];

export function isOutputFormat(name: string): name is OutputFormat {
  return Object.hasOwn(OUTPUT_FORMATS, name);
}

export function renderList(rows: RowsToRender, q: ListOptions & { format: OutputFormat }): Rendered {
  const writer: OutputFormatWriter = OUTPUT_FORMATS[q.format];
  return { contentType: writer.contentType, body: writer.list(rows, q) };
}

export function renderOne(
  row: OneRow,
  q: { format: OutputFormat; callback: string | null },
): { contentType: string; body: string } {
  const writer: OutputFormatWriter = OUTPUT_FORMATS[q.format];
  return { contentType: writer.contentType, body: writer.one(row, q.callback) };
}
