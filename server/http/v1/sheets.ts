import type { Request, Response } from 'express';
import { parsePublicSheetId } from '../../connections/sheet-id.ts';
import { AppError } from '../../errors.ts';
import type { ConnectionRecord } from '../../repositories/connections.ts';
import { renderPage } from '../../rows/page-cache.ts';
import { parseListQuery } from '../../rows/query-params.ts';
import type { TabSnapshot } from '../../sources/source.ts';
import { authorizeRead } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { setFreshnessHeaders } from '../freshness-headers.ts';
import { setPagingHeaders } from '../paging.ts';
import type { RouteTable } from '../route-table.ts';
import { send } from '../rows.ts';

export const V1_LIST_LIMITS = { defaultLimit: 100, maxLimit: 500 };

/** `/v1/sheets/{sheetId}`: a tab by its stable id, which survives renames. */
export function mountSheetRoutes(routes: RouteTable, deps: AppDeps): void {
  const resolve = async (
    req: Request,
    res: Response,
  ): Promise<{ connection: ConnectionRecord; tab: TabSnapshot }> => {
    const sheetId = String(req.params.sheetId);
    const parsed = parsePublicSheetId(sheetId);
    const connection = parsed && (await deps.connections.getBySpreadsheetId(parsed.spreadsheetId));
    if (!parsed || !connection) throw new AppError('sheet_not_found', `No tab with sheet_id "${sheetId}".`);
    authorizeRead(res, connection);
    const tab = (await deps.replica.get(connection)).bySourceSheetId.get(parsed.sourceSheetId);
    if (!tab) throw new AppError('sheet_not_found', `No tab with sheet_id "${sheetId}".`);
    setFreshnessHeaders(res, deps.replica.freshness(connection));
    return { connection, tab };
  };

  routes.get('/v1/sheets/:sheetId', 'public_read', async (req, res) => {
    const { connection, tab } = await resolve(req, res);
    res.json({
      sheet_id: String(req.params.sheetId),
      spreadsheet_id: connection.spreadsheetId,
      name: tab.name,
      header: tab.header,
      row_count: tab.typed.length,
    });
  });

  routes.get('/v1/sheets/:sheetId/rows', 'public_read', async (req, res) => {
    const { tab } = await resolve(req, res);
    // The /v1 listing is always shape B; only JSON is offered here (the /api routes carry the other formats).
    const query = { ...parseListQuery({ ...req.query, meta: 'true' }, V1_LIST_LIMITS) };
    if (query.format !== 'json') {
      throw new AppError('invalid_parameter', '/v1 row listings are JSON only; use /api for other formats.', {
        parameter: 'format',
      });
    }
    const page = renderPage(tab, query);
    setPagingHeaders(req, res, page.total, query.limit, query.offset);
    send(res, 200, page.rendered);
  });
}
