/**
 * The parameters of an aggregate: `group_by` (the `fields` grammar, up to 4 columns), `metrics` (metrics.ts),
 * which rows (`where`, `search`, `search_exact`), `sort` on output columns, `limit` (default 100, at most 1000),
 * `offset`, `format`, `callback` and `meta`. Pure: names are checked against the tab later (groups.ts).
 */
import type { OutputFormat } from '../formats/index.ts';
import { splitEscaped } from '../parameter-grammar.ts';
import type { ListQuery } from '../query.ts';
import {
  parseCallback,
  parseFlag,
  parseFormat,
  parsePaging,
  parseRowFilters,
  parseSort,
  singleQuery,
} from '../query-params.ts';
import type { AggregateSpec } from './groups.ts';
import { parseMetrics } from './metrics.ts';

export const AGGREGATE_LIMITS = { defaultLimit: 100, maxLimit: 1000 };

export type AggregateQuery = AggregateSpec &
  Pick<ListQuery, 'filters' | 'where'> & { format: OutputFormat; callback: string | null; meta: boolean };

/** `shapeB`: the `/v1` route, whose JSON is always `{data, meta}`. */
export function parseAggregateQuery(query: Record<string, unknown>, shapeB: boolean): AggregateQuery {
  const groupBy = singleQuery(query, 'group_by');
  const format = parseFormat(query);
  return {
    groupBy: groupBy === undefined || groupBy === '' ? [] : [...new Set(splitEscaped(groupBy))],
    metrics: parseMetrics(singleQuery(query, 'metrics')),
    ...parseRowFilters(query),
    sort: parseSort(query),
    ...parsePaging(query, AGGREGATE_LIMITS),
    format,
    callback: parseCallback(query, format),
    meta: shapeB || parseFlag(query, 'meta'),
  };
}
