/**
 * A list request's query (`?search=...&sort=...&limit=...`), parsed once while its query string repeats: a
 * dashboard or a no-code tool polls one URL, and parsing the string, then the parameters, was a few percent of
 * a cached page's cost. The parsed query is shared by the requests that asked the same string, so it is frozen.
 */

import { RecentValues } from '../lib/recent-values.ts';
import type { ListQuery } from '../rows/query.ts';
import { parseListQuery } from '../rows/query-params.ts';
import type { RouteRequest } from './route-table.ts';

type Limits = Parameters<typeof parseListQuery>[1];

/** Recent query strings and what they parse to, per set of limits (lib/recent-values.ts). */
const recent = new WeakMap<Limits, RecentValues<ListQuery>>();

export function listQueryOf(req: RouteRequest, limits: Limits): ListQuery {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  const search = q === -1 ? '' : url.slice(q + 1);
  let known = recent.get(limits);
  if (!known) {
    known = new RecentValues(256);
    recent.set(limits, known);
  }
  return known.get(search, () => frozen(parseListQuery(req.query, limits)));
}

function frozen(query: ListQuery): ListQuery {
  for (const part of [query.filters, query.sort, query.fields]) {
    if (part) for (const item of part) Object.freeze(item);
    Object.freeze(part);
  }
  return Object.freeze(query);
}
