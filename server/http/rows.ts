import { AppError } from '../errors.ts';
import { quantity } from '../lib/quantity.ts';
import { projectRow } from '../rows/engine.ts';
import { etagMatches, rowEtag } from '../rows/etag.ts';
import { type Rendered, renderOne } from '../rows/formats/index.ts';
import { renderPage } from '../rows/page-cache.ts';
import { parseRowViewQuery } from '../rows/query-params.ts';
import type { Mutation, TabSnapshot } from '../sources/source.ts';
import { rowCountOf, rowOf } from '../sources/tab-rows.ts';
import { setFreshnessHeaders } from './freshness-headers.ts';
import { listQueryOf } from './list-query.ts';
import { writeMutations } from './mutation-errors.ts';
import { setPagingHeaders } from './paging.ts';
import type { RouteContext, RouteRequest, RouteResponse, RouteTable } from './route-table.ts';
import { parseAppendBody, parseInputMode, parseRowNumber, parseUpdateBody } from './row-input.ts';

export const API_LIST_LIMITS = { defaultLimit: 100, maxLimit: 1000 };

const BASE = '/api/spreadsheets/:userKey/:sheetName';

/** The seed's row routes: `/api/spreadsheets/{userKey}/{sheetName}[/{row}]`, each on the tab the path names. */
export function mountRowRoutes(routes: RouteTable): void {
  routes.get(BASE, { access: 'public_read', resource: 'tab' }, listRows);
  mountRowsAt(routes, BASE);
}

/**
 * One row by number (get, update, delete) and the append, under `collection`, a path that names a tab: `/api`'s
 * by userKey and name, and `/v1/sheets/:sheetId/rows` by sheet_id. The same handlers on both, so a row behaves
 * alike however its tab is named (parameters, errors, ETag, If-Match, input modes, the formula rule).
 */
export function mountRowsAt(routes: RouteTable, collection: string): void {
  routes.get(`${collection}/:row`, { access: 'public_read', resource: 'tab' }, getRow);
  routes.post(collection, { access: 'read_write', resource: 'tab' }, appendRows);
  routes.put(`${collection}/:row`, { access: 'read_write', resource: 'tab' }, updateRow);
  routes.patch(`${collection}/:row`, { access: 'read_write', resource: 'tab' }, updateRow);
  routes.delete(`${collection}/:row`, { access: 'read_write', resource: 'tab' }, deleteRow);
}

type ReadContext = RouteContext<'public_read', 'tab'>;
type WriteContext = RouteContext<'read_write', 'tab'>;

async function listRows(req: RouteRequest, res: RouteResponse, { spreadsheet, tab }: ReadContext) {
  const query = listQueryOf(req, API_LIST_LIMITS);
  setFreshnessHeaders(res, spreadsheet.freshness());
  const page = await renderPage(tab, query);
  setPagingHeaders(req, res, page.total, query.limit, query.offset);
  send(res, 200, page.rendered);
}

function getRow(req: RouteRequest, res: RouteResponse, { spreadsheet, tab }: ReadContext): void {
  const row = parseRowNumber(String(req.params.row));
  const view = parseRowViewQuery(req.query);
  setFreshnessHeaders(res, spreadsheet.freshness());
  const typed = rowOf(tab, row - 1);
  if (!typed) throw rowNotFound(row, tab);
  const etag = rowEtag(typed);
  res.setHeader('ETag', etag);
  const ifNoneMatch = req.get('if-none-match');
  if (ifNoneMatch && etagMatches(ifNoneMatch, etag, 'weak')) {
    res.status(304).end();
    return;
  }
  const projected = projectRow(tab, row, view.fields, view.values);
  send(res, 200, renderOne({ index: row, ...projected }, view));
}

async function appendRows(req: RouteRequest, res: RouteResponse, { key, spreadsheet, tab }: WriteContext) {
  const rows = parseAppendBody(req.body);
  const userEntered = parseInputMode(req.query.input);
  const mutations: Mutation[] = rows.map((values) => ({ op: 'append', values }));
  const list = Array.isArray(req.body) ? 'rows' : 'single';
  const options = { allowFormulas: key.allowFormulas, userEntered };
  const result = await writeMutations(spreadsheet, tab.sourceSheetId, mutations, options, list);
  res.status(201).json({ appended: result.appended });
}

/** PUT and PATCH of one row (both merge the given fields into it). */
async function updateRow(req: RouteRequest, res: RouteResponse, { key, spreadsheet, tab }: WriteContext) {
  const row = parseRowNumber(String(req.params.row));
  const values = parseUpdateBody(req.body);
  const userEntered = parseInputMode(req.query.input);
  const options = { allowFormulas: key.allowFormulas, userEntered, precondition: ifMatch(req, row) };
  const mutations: Mutation[] = [{ op: 'update', row, values }];
  const result = await writeMutations(spreadsheet, tab.sourceSheetId, mutations, options, 'single');
  const after = result.snapshot.tabs.find((t) => t.sourceSheetId === tab.sourceSheetId)?.typed[row - 1];
  if (after) res.setHeader('ETag', rowEtag(after));
  res.status(200).json({ updated: result.updated, row });
}

async function deleteRow(req: RouteRequest, res: RouteResponse, { key, spreadsheet, tab }: WriteContext) {
  const row = parseRowNumber(String(req.params.row));
  const options = { allowFormulas: key.allowFormulas, userEntered: false, precondition: ifMatch(req, row) };
  const mutations: Mutation[] = [{ op: 'delete', row }];
  const result = await writeMutations(spreadsheet, tab.sourceSheetId, mutations, options, 'single');
  res.status(200).json({ deleted: result.deleted, row });
}

function rowNotFound(row: number, tab: TabSnapshot): AppError {
  return new AppError(
    'row_not_found',
    `Row ${row} does not exist; the tab has ${quantity(rowCountOf(tab), 'row')}.`,
    {
      row,
      row_count: rowCountOf(tab),
    },
  );
}

/** `If-Match` is checked against the tab as freshly read inside the write, so no outside edit slips between. */
function ifMatch(req: RouteRequest, row: number): ((tab: TabSnapshot) => void) | undefined {
  const header = req.get('if-match');
  if (!header) return undefined;
  return (tab) => {
    const typed = rowOf(tab, row - 1);
    if (!typed) throw rowNotFound(row, tab);
    if (!etagMatches(header, rowEtag(typed), 'strong')) {
      throw new AppError(
        'precondition_failed',
        `Row ${row} changed since it was read (If-Match did not match).`,
        {
          row,
        },
      );
    }
  };
}

export function send(res: RouteResponse, status: number, rendered: Rendered): void {
  res.status(status).setHeader('Content-Type', rendered.contentType);
  if (rendered.contentType.startsWith('application/javascript'))
    res.setHeader('X-Content-Type-Options', 'nosniff');
  res.send(rendered.body);
}
