/**
 * A list request's query (`?search=...&sort=...&limit=...`), parsed once while its query string repeats: a
 * dashboard or a no-code tool polls one URL, and parsing the string, then the parameters, was a few percent of
 * a cached page's cost. The parsed query is shared by the requests that asked the same string, so it is frozen.
 */

import type { ListQuery } from '../rows/query.ts';
import { parseListQuery } from '../rows/query-params.ts';
import type { RouteRequest } from './route-table.ts';

type Limits = Parameters<typeof parseListQuery>[1];

/** Recent query strings and what they parse to, per set of limits; bounded in count and in a string's length. */
const recent = new WeakMap<Limits, Map<string, ListQuery>>();
const RECENT = 256;
const KEPT_LENGTH = 1024;

export function listQueryOf(req: RouteRequest, limits: Limits): ListQuery {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  const search = q === -1 ? '' : url.slice(q + 1);
  if (search.length > KEPT_LENGTH) return parseListQuery(req.query, limits);
  let known = recent.get(limits);
  if (!known) {
    known = new Map();
    recent.set(limits, known);
  }
  let query = known.get(search);
  if (!query) {
    query = frozen(parseListQuery(req.query, limits));
    if (known.size >= RECENT) known.clear();
    known.set(search, query);
  }
  return query;
}

function frozen(query: ListQuery): ListQuery {
  for (const part of [query.filters, query.sort, query.fields]) {
    if (part) for (const item of part) Object.freeze(item);
    Object.freeze(part);
  }
  return Object.freeze(query);
}
