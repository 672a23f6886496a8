/**
 * The five output formats behind one entry point for lists and one for single rows. Writers get rows as
 * arrays in `fields` order and return the whole body as a string (pages are at most 1000 rows).
 */
import type { CellValue } from '../../sources/source.ts';
import type { QueryResult } from '../engine.ts';
import type { OutputFormat } from '../query-params.ts';
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

function requireCallback(callback: string | null): string {
  // parseListQuery guarantees a callback for jsonp; this guards direct callers.
  if (!callback) throw new Error('jsonp output needs a callback');
  return callback;
}

export function renderList(
  result: QueryResult,
  q: { format: OutputFormat; callback: string | null; meta: boolean; limit: number; offset: number },
): Rendered {
  const meta = { total: result.total, limit: q.limit, offset: q.offset };
  switch (q.format) {
    case 'json':
      return {
        contentType: JSON_TYPE,
        body: jsonListBytes(result.fields, result.rows, q.meta ? meta : null, result.wholeRowsOf),
      };
    case 'jsonp': {
      const json = jsonList(result.fields, result.rows, q.meta ? meta : null, true);
      return { contentType: JSONP_TYPE, body: jsonp(requireCallback(q.callback), json) };
    }
    case 'csv':
      return { contentType: CSV_TYPE, body: csv(result.fields, result.rows) };
    case 'tsv':
      return { contentType: TSV_TYPE, body: tsv(result.fields, result.rows) };
    case 'xml':
      return { contentType: XML_TYPE, body: xmlList(result.fields, result.rows, meta) };
  }
}

export function renderOne(
  row: { index: number; fields: string[]; values: CellValue[] },
  q: { format: OutputFormat; callback: string | null },
): { contentType: string; body: string } {
  switch (q.format) {
    case 'json':
      return { contentType: JSON_TYPE, body: jsonOne(row.fields, row.values) };
    case 'jsonp':
      return {
        contentType: JSONP_TYPE,
        body: jsonp(requireCallback(q.callback), jsonOne(row.fields, row.values, true)),
      };
    case 'csv':
      return { contentType: CSV_TYPE, body: csv(row.fields, [row]) };
    case 'tsv':
      return { contentType: TSV_TYPE, body: tsv(row.fields, [row]) };
    case 'xml':
      return { contentType: XML_TYPE, body: xmlOne(row.fields, row.index, row.values) };
  }
}
