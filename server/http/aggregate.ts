/**
 * Aggregates of a tab (docs/api.md "Aggregates"): `GET /api/spreadsheets/{userKey}/{sheetName}/aggregate` and
 * `GET /v1/sheets/{sheetId}/aggregate`, counts, sums, averages and extremes per group of the matching rows, in
 * every output format, paged like a listing. Declared before the row routes, so `aggregate` is never read as a
 * row number; the other methods there are 405.
 */

import { parseAggregateQuery } from '../rows/aggregate/aggregate-params.ts';
import { aggregate } from '../rows/aggregate/groups.ts';
import { filteredRows, prepareQuery } from '../rows/engine.ts';
import { renderList } from '../rows/formats/index.ts';
import { whereHits } from '../rows/where/where-hits.ts';
import { setFreshnessHeaders } from './freshness-headers.ts';
import { setPagingHeaders } from './paging.ts';
import type { RouteContext, RouteRequest, RouteResponse, RouteTable } from './route-table.ts';
import { send } from './rows.ts';

export function mountAggregateRoutes(routes: RouteTable): void {
  const api = '/api/spreadsheets/:userKey/:sheetName/aggregate';
  const v1 = '/v1/sheets/:sheetId/aggregate';
  routes.get(api, { access: 'public_read', resource: 'tab' }, (req, res, ctx) =>
    aggregateTab(req, res, ctx, false),
  );
  routes.get(v1, { access: 'public_read', resource: 'tab' }, (req, res, ctx) =>
    aggregateTab(req, res, ctx, true),
  );
  routes.reserve(api, ['GET']);
  routes.reserve(v1, ['GET']);
}

/** The aggregate of a tab, as both routes answer it (and the dashboard's query bar, admin-query.ts). */
export async function aggregateTab(
  req: RouteRequest,
  res: RouteResponse,
  { spreadsheet, tab }: Pick<RouteContext<'public_read', 'tab'>, 'spreadsheet' | 'tab'>,
  shapeB: boolean,
): Promise<void> {
  const query = parseAggregateQuery(req.query, shapeB);
  setFreshnessHeaders(res, spreadsheet.freshness());
  const hits = query.where ? await whereHits(tab, query.where) : undefined;
  await prepareQuery(tab, { filters: query.filters, sort: [], values: 'typed' }); // filteredRows' own mode
  const page = await aggregate(tab, filteredRows(tab, query, hits), query);
  setPagingHeaders(req, res, page.total, query.limit, query.offset);
  const rows = page.rows.map((values, i) => ({ index: query.offset + i + 1, values }));
  send(res, 200, renderList({ total: page.total, matched: page.matched, fields: page.fields, rows }, query));
}
