/**
 * The dashboard's query bar: `GET /admin/connections/{id}/sheets/{sheet}/rows` and `.../aggregate` list and
 * aggregate a tab by the very code of `GET /v1/sheets/{sheetId}/rows` and `/aggregate` (the same parameters,
 * answers and errors), for the admin session, which holds no API key.
 */

import { connectionNamed } from './admin-connections.ts';
import { aggregateTab } from './aggregate.ts';
import type { AppDeps } from './deps.ts';
import type { RouteRequest, RouteTable } from './route-table.ts';
import { listTab } from './v1/sheets.ts';

type QueryDeps = Pick<AppDeps, 'connections' | 'spreadsheets'>;

export function mountAdminQueryRoutes(routes: RouteTable, deps: QueryDeps): void {
  routes.get('/admin/connections/:id/sheets/:sheet/rows', 'admin', async (req, res) => {
    await listTab(req, res, await tabOf(deps, req));
  });
  routes.get('/admin/connections/:id/sheets/:sheet/aggregate', 'admin', async (req, res) => {
    await aggregateTab(req, res, await tabOf(deps, req), true);
  });
}

async function tabOf(deps: QueryDeps, req: RouteRequest) {
  const spreadsheet = deps.spreadsheets.of(await connectionNamed(deps, req));
  return { spreadsheet, tab: await spreadsheet.tab({ name: String(req.params.sheet) }) };
}
