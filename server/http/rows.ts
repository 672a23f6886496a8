import type { Request, RequestHandler, Response } from 'express';
import { AppError, isAppError } from '../errors.ts';
import { quantity } from '../lib/quantity.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import { projectRow } from '../rows/engine.ts';
import { etagMatches, rowEtag } from '../rows/etag.ts';
import { type Rendered, renderOne } from '../rows/formats/index.ts';
import { renderPage } from '../rows/page-cache.ts';
import { parseListQuery, parseRowViewQuery } from '../rows/query-params.ts';
import type { Mutation, TabSnapshot, WriteOptions, WriteResult } from '../sources/source.ts';
import { authorize, authorizeRead } from './auth.ts';
import type { AppDeps } from './deps.ts';
import { setFreshnessHeaders } from './freshness-headers.ts';
import { setPagingHeaders } from './paging.ts';
import type { RouteTable } from './route-table.ts';
import { parseAppendBody, parseInputMode, parseRowNumber, parseUpdateBody } from './row-input.ts';

export const API_LIST_LIMITS = { defaultLimit: 100, maxLimit: 1000 };

const BASE = '/api/spreadsheets/:userKey/:sheetName';

/** The seed's row routes: `/api/spreadsheets/{userKey}/{sheetName}[/{row}]`. */
export function mountRowRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.get(BASE, 'public_read', listRows(deps));
  routes.get(`${BASE}/:row`, 'public_read', getRow(deps));
  routes.post(BASE, 'write', appendRows(deps));
  const update = updateRow(deps);
  routes.put(`${BASE}/:row`, 'write', update);
  routes.patch(`${BASE}/:row`, 'write', update);
  routes.delete(`${BASE}/:row`, 'write', deleteRow(deps));
}

function listRows(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const connection = await connectionOf(deps, req);
    authorizeRead(res, connection);
    const query = parseListQuery(req.query, API_LIST_LIMITS);
    const tab = await readTab(deps, req, res, connection);
    const page = renderPage(tab, query);
    setPagingHeaders(req, res, page.total, query.limit, query.offset);
    send(res, 200, page.rendered);
  };
}

function getRow(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const connection = await connectionOf(deps, req);
    authorizeRead(res, connection);
    const row = parseRowNumber(String(req.params.row));
    const view = parseRowViewQuery(req.query);
    const tab = await readTab(deps, req, res, connection);
    const typed = tab.typed[row - 1];
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
  };
}

function appendRows(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const connection = await connectionOf(deps, req);
    const key = authorize(res, connection, 'write');
    const rows = parseAppendBody(req.body);
    const userEntered = parseInputMode(req.query.input);
    const tab = await tabOf(deps, req, connection);
    const mutations: Mutation[] = rows.map((values) => ({ op: 'append', values }));
    const result = await write(
      deps,
      connection,
      tab,
      mutations,
      { allowFormulas: key.allowFormulas, userEntered },
      Array.isArray(req.body),
    );
    res.status(201).json({ appended: result.appended });
  };
}

/** PUT and PATCH of one row (both merge the given fields into it). */
function updateRow(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const connection = await connectionOf(deps, req);
    const key = authorize(res, connection, 'write');
    const row = parseRowNumber(String(req.params.row));
    const values = parseUpdateBody(req.body);
    const userEntered = parseInputMode(req.query.input);
    const tab = await tabOf(deps, req, connection);
    const result = await write(deps, connection, tab, [{ op: 'update', row, values }], {
      allowFormulas: key.allowFormulas,
      userEntered,
      precondition: ifMatch(req, row),
    });
    const after = result.snapshot.tabs.find((t) => t.sourceSheetId === tab.sourceSheetId)?.typed[row - 1];
    if (after) res.setHeader('ETag', rowEtag(after));
    res.status(200).json({ updated: result.updated, row });
  };
}

function deleteRow(deps: AppDeps): RequestHandler {
  return async (req, res) => {
    const connection = await connectionOf(deps, req);
    const key = authorize(res, connection, 'write');
    const row = parseRowNumber(String(req.params.row));
    const tab = await tabOf(deps, req, connection);
    const result = await write(deps, connection, tab, [{ op: 'delete', row }], {
      allowFormulas: key.allowFormulas,
      userEntered: false,
      precondition: ifMatch(req, row),
    });
    res.status(200).json({ deleted: result.deleted, row });
  };
}

async function connectionOf(deps: AppDeps, req: Request): Promise<ConnectionRecord> {
  const connection = await deps.connections.getByUserKey(String(req.params.userKey));
  if (!connection)
    throw new AppError('spreadsheet_not_found', 'No spreadsheet is connected under this userKey.');
  return connection;
}

function tabOf(deps: AppDeps, req: Request, connection: ConnectionRecord): Promise<TabSnapshot> {
  return deps.replica.tabByName(connection, String(req.params.sheetName));
}

/** A read's tab, with how old it is in the headers. */
async function readTab(
  deps: AppDeps,
  req: Request,
  res: Response,
  connection: ConnectionRecord,
): Promise<TabSnapshot> {
  const tab = await tabOf(deps, req, connection);
  setFreshnessHeaders(res, deps.replica.freshness(connection));
  return tab;
}

/**
 * The source names the failing mutation by `index`; on these routes that is the position in a POSTed array,
 * and means nothing for one object, a PUT or a DELETE, whose errors answer exactly like a GET's.
 */
async function write(
  deps: AppDeps,
  connection: ConnectionRecord,
  tab: TabSnapshot,
  mutations: Mutation[],
  options: WriteOptions,
  keepIndex = false,
): Promise<WriteResult> {
  try {
    return await deps.replica.write(connection, tab.sourceSheetId, mutations, options);
  } catch (e) {
    if (keepIndex || !isAppError(e) || !('index' in e.details)) throw e;
    const { index: _index, ...details } = e.details;
    throw new AppError(e.code, e.message, details);
  }
}

function rowNotFound(row: number, tab: TabSnapshot): AppError {
  return new AppError(
    'row_not_found',
    `Row ${row} does not exist; the tab has ${quantity(tab.typed.length, 'row')}.`,
    {
      row,
      row_count: tab.typed.length,
    },
  );
}

/** `If-Match` is checked against the tab as freshly read inside the write, so no outside edit slips between. */
function ifMatch(req: Request, row: number): ((tab: TabSnapshot) => void) | undefined {
  const header = req.get('if-match');
  if (!header) return undefined;
  return (tab) => {
    const typed = tab.typed[row - 1];
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

export function send(res: Response, status: number, rendered: Rendered): void {
  res.status(status).setHeader('Content-Type', rendered.contentType);
  if (rendered.contentType.startsWith('application/javascript'))
    res.setHeader('X-Content-Type-Options', 'nosniff');
  res.send(rendered.body);
}
