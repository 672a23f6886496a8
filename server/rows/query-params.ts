/**
 * Turns the raw `req.query` of a list (or single-row) request into a validated ListQuery.
 * Pure: no knowledge of the tab, so field names are checked later by the engine (unknown_field).
 * Every rejection is AppError('invalid_parameter') with `details.parameter` naming the culprit.
 */
import { AppError } from '../errors.ts';
import { isOutputFormat, OUTPUT_FORMAT_NAMES, type OutputFormat } from './formats/index.ts';
import { parseSearch, splitEscaped, splitSortKeys } from './parameter-grammar.ts';
import type { Filter, ListQuery, SortKey, ValuesMode, WhereClause } from './query.ts';
import { parseWhere } from './where/parse.ts';

export interface ListParamOptions {
  defaultLimit: number;
  maxLimit: number;
}

const CALLBACK_RE = /^[A-Za-z_$][\w$]{0,63}(\.[A-Za-z_$][\w$]{0,63}){0,4}$/;
const UINT_RE = /^[0-9]+$/;

function invalid(parameter: string, message: string): AppError {
  return new AppError('invalid_parameter', message, { parameter });
}

/**
 * One query value as a string, or undefined when absent. Repeated params arrive as arrays and are refused
 * (silently picking one would hide client bugs); objects (extended query parsers) are refused too.
 */
export function singleQuery(query: Record<string, unknown>, name: string): string | undefined {
  if (!Object.hasOwn(query, name)) return undefined;
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) throw invalid(name, `Parameter "${name}" was given more than once.`);
  throw invalid(name, `Parameter "${name}" must be a plain string value.`);
}

export function parseUint(name: string, raw: string): number {
  if (!UINT_RE.test(raw)) throw invalid(name, `Parameter "${name}" must be a non-negative integer.`);
  // Huge digit strings are still "an integer >= 0": clamp instead of overflowing to Infinity.
  return Math.min(Number(raw), Number.MAX_SAFE_INTEGER);
}

function parseFields(query: Record<string, unknown>): string[] | null {
  const raw = singleQuery(query, 'fields');
  // `fields=` (empty) means "no projection" rather than "the field named ''": far more likely what
  // a client that joined an empty list meant. `fields=,` still selects a column named ''.
  if (raw === undefined || raw === '') return null;
  return [...new Set(splitEscaped(raw))];
}

export function parseSort(query: Record<string, unknown>): SortKey[] {
  const raw = singleQuery(query, 'sort');
  if (raw === undefined || raw === '') return [];
  const keys: SortKey[] = [];
  const seen = new Set<string>();
  for (const key of splitSortKeys(raw)) {
    // A later key on the same field can never change the order: drop it (keeps cache keys canonical).
    if (seen.has(key.field)) continue;
    seen.add(key.field);
    keys.push(key);
  }
  return keys;
}

/** `where` read now, so a malformed one is refused before any row is; blank (`where=`) filters nothing. */
export function parseWhereParameter(query: Record<string, unknown>): WhereClause | null {
  const text = singleQuery(query, 'where');
  if (text === undefined || /^[ \t\r\n]*$/.test(text)) return null;
  return { text, expression: parseWhere(text) };
}

export function parseFormat(query: Record<string, unknown>): OutputFormat {
  const raw = singleQuery(query, 'format');
  if (raw === undefined) return 'json';
  if (isOutputFormat(raw)) return raw;
  throw invalid('format', `Parameter "format" must be one of ${OUTPUT_FORMAT_NAMES.join(', ')}.`);
}

export function parseCallback(query: Record<string, unknown>, format: OutputFormat): string | null {
  const raw = singleQuery(query, 'callback');
  if (format !== 'jsonp') return null;
  if (raw === undefined || raw === '')
    throw invalid('callback', 'format=jsonp requires a "callback" parameter.');
  if (!CALLBACK_RE.test(raw)) {
    throw invalid(
      'callback',
      'Parameter "callback" must be a JavaScript identifier path like "cb" or "app.cb".',
    );
  }
  return raw;
}

function parseValues(query: Record<string, unknown>): ValuesMode {
  const raw = singleQuery(query, 'values');
  if (raw === undefined || raw === 'typed') return 'typed';
  if (raw === 'formatted' || raw === 'formula') return raw;
  throw invalid('values', 'Parameter "values" must be "typed", "formatted" or "formula".');
}

export function parseFlag(query: Record<string, unknown>, name: string): boolean {
  const raw = singleQuery(query, name);
  if (raw === undefined || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw invalid(name, `Parameter "${name}" must be true, false, 1 or 0.`);
}

/** `row_numbers` says where each row is in the tab, in shape B's meta: a JSON list with `meta=true` only. */
function parseRowNumbers(query: Record<string, unknown>, format: string, meta: boolean): boolean {
  const rowNumbers = parseFlag(query, 'row_numbers');
  if (rowNumbers && (format !== 'json' || !meta)) {
    throw invalid('row_numbers', 'Parameter "row_numbers" needs JSON shape B (meta=true, format=json).');
  }
  return rowNumbers;
}

/** `search`, `search_exact` and `where`: which rows a listing or an aggregate reads (ANDed). */
export function parseRowFilters(query: Record<string, unknown>): Pick<ListQuery, 'filters' | 'where'> {
  const filters: Filter[] = [];
  const search = singleQuery(query, 'search');
  if (search !== undefined) filters.push(...parseSearch(search, 'search', false));
  const exact = singleQuery(query, 'search_exact');
  if (exact !== undefined) filters.push(...parseSearch(exact, 'search_exact', true));
  return { filters, where: parseWhereParameter(query) };
}

/** Parse list params. Unknown params are ignored (jQuery adds `_`), known ones are strict. */
export function parseListQuery(query: Record<string, unknown>, options: ListParamOptions): ListQuery {
  const maxLimit = options.maxLimit;
  const limitRaw = singleQuery(query, 'limit');
  const limit = Math.min(
    limitRaw === undefined ? options.defaultLimit : parseUint('limit', limitRaw),
    maxLimit,
  );
  const offsetRaw = singleQuery(query, 'offset');
  const offset = offsetRaw === undefined ? 0 : parseUint('offset', offsetRaw);

  const format = parseFormat(query);
  const meta = parseFlag(query, 'meta');
  return {
    ...parseRowFilters(query),
    sort: parseSort(query),
    fields: parseFields(query),
    limit,
    offset,
    values: parseValues(query),
    format,
    callback: parseCallback(query, format),
    meta,
    ...(parseRowNumbers(query, format, meta) ? { rowNumbers: true } : {}),
  };
}

/** Params of GET one row: projection, value mode and output format only (paging/search make no sense). */
export function parseRowViewQuery(
  query: Record<string, unknown>,
): Pick<ListQuery, 'fields' | 'values' | 'format' | 'callback'> {
  const format = parseFormat(query);
  return {
    fields: parseFields(query),
    values: parseValues(query),
    format,
    callback: parseCallback(query, format),
  };
}

/** `limit` (default and maximum per route; larger values are clamped) and `offset` (default 0), for any list. */
export function parsePaging(
  query: Record<string, unknown>,
  options: ListParamOptions,
): { limit: number; offset: number } {
  const limitRaw = singleQuery(query, 'limit');
  const offsetRaw = singleQuery(query, 'offset');
  return {
    limit: Math.min(
      limitRaw === undefined ? options.defaultLimit : parseUint('limit', limitRaw),
      options.maxLimit,
    ),
    offset: offsetRaw === undefined ? 0 : parseUint('offset', offsetRaw),
  };
}
