import { AppError } from '../../errors.ts';
import { columnProfiles } from '../../rows/column-profile.ts';
import { renderPage } from '../../rows/page-cache.ts';
import { parseListQuery } from '../../rows/query-params.ts';
import { rowCountOf } from '../../sources/tab-rows.ts';
import { setFreshnessHeaders } from '../freshness-headers.ts';
import { setPagingHeaders } from '../paging.ts';
import type { RouteContext, RouteRequest, RouteResponse, RouteTable } from '../route-table.ts';
import { mountRowsAt, send } from '../rows.ts';

export const V1_LIST_LIMITS = { defaultLimit: 100, maxLimit: 500 };

const ROWS = '/v1/sheets/:sheetId/rows';

/**
 * `/v1/sheets/{sheetId}`: a tab by its stable id, which survives renames; its rows listed (shape B, JSON), and
 * one row got, appended, updated and deleted by the `/api` row routes' own handlers (rows.ts `mountRowsAt`).
 */
export function mountSheetRoutes(routes: RouteTable): void {
  routes.get('/v1/sheets/:sheetId', { access: 'public_read', resource: 'tab' }, (req, res, ctx) => {
    setFreshnessHeaders(res, ctx.spreadsheet.freshness());
    res.json({
      sheet_id: String(req.params.sheetId),
      spreadsheet_id: ctx.connection.spreadsheetId,
      name: ctx.tab.name,
      header: ctx.tab.header,
      row_count: rowCountOf(ctx.tab),
      columns: columnProfiles(ctx.tab),
    });
  });

  routes.get(ROWS, { access: 'public_read', resource: 'tab' }, (req, res, ctx) => listTab(req, res, ctx));

  // `rows/batchUpdate` is the batch's path (batch.ts), not row "batchUpdate": a GET or PUT there stays a 405.
  routes.reserve(`${ROWS}/batchUpdate`, ['POST']);
  mountRowsAt(routes, ROWS);
}

/**
 * A tab's rows as `GET /v1/sheets/{sheetId}/rows` answers them: always shape B; only JSON (the /api routes carry
 * the other formats). The dashboard's query bar answers with it too (admin-query.ts).
 */
export async function listTab(
  req: RouteRequest,
  res: RouteResponse,
  { spreadsheet, tab }: Pick<RouteContext<'public_read', 'tab'>, 'spreadsheet' | 'tab'>,
): Promise<void> {
  setFreshnessHeaders(res, spreadsheet.freshness());
  const query = { ...parseListQuery({ ...req.query, meta: 'true' }, V1_LIST_LIMITS) };
  if (query.format !== 'json') {
    throw new AppError('invalid_parameter', '/v1 row listings are JSON only; use /api for other formats.', {
      parameter: 'format',
    });
  }
  const page = await renderPage(tab, query);
  setPagingHeaders(req, res, page.total, query.limit, query.offset);
  send(res, 200, page.rendered);
}
