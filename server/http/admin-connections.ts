/**
 * `/admin/connections`: the dashboard's view of the registered spreadsheets. Connecting goes through the same use
 * case as `sheetport connect` (connections/connect.ts) and answers the shape of `GET /v1/spreadsheets/{id}`;
 * removing answers what `sheetport connections remove --json` prints. Access `admin` (loopback and the admin
 * token), like the rest of `/admin`.
 */
import type { Request, RequestHandler } from 'express';
import { connectSpreadsheet } from '../connections/connect.ts';
import { adminConnectionJson, describeSpreadsheet } from '../connections/describe.ts';
import { forgetKept } from '../connections/forget-kept.ts';
import { toPublicSheetId } from '../connections/sheet-id.ts';
import { AppError } from '../errors.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import { rowsComplete } from '../sources/tab-rows.ts';
import { adminBody } from './admin.ts';
import type { AppDeps } from './deps.ts';
import { limitParameter } from './paging.ts';
import type { RouteTable } from './route-table.ts';

const CONNECT_KEYS = ['location', 'kind', 'name'] as const;

/** A JSON object holding only the connect keys; an unknown key is named, so a typo'd `name` is never dropped. */
function connectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError(
      'invalid_body',
      'Request body must be a JSON object: {"location": "...", "kind"?, "name"?}.',
    );
  }
  const extra = Object.keys(body).find((k) => !(CONNECT_KEYS as readonly string[]).includes(k));
  if (extra !== undefined) {
    throw new AppError(
      'invalid_body',
      `Unexpected key "${extra}" in the body; allowed: ${CONNECT_KEYS.map((k) => `"${k}"`).join(', ')}.`,
      { field: extra },
    );
  }
  return body as Record<string, unknown>;
}

function stringField(body: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const value = body[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new AppError('invalid_body', `"${name}" must be a non-empty string.`, { field: name });
  }
  return value;
}

const PREVIEW_ROWS = { default: 20, max: 100 };
const PREVIEW_VALUES = ['typed', 'formatted', 'formula'] as const;

/** `?values=` as the row API reads it: typed (default), the text the sheet shows, or formula text in place. */
function previewValues(req: Request): (typeof PREVIEW_VALUES)[number] {
  const raw = req.query.values ?? 'typed';
  const found = PREVIEW_VALUES.find((v) => v === raw);
  if (!found)
    throw new AppError('invalid_parameter', 'Parameter "values" must be "typed", "formatted" or "formula".', {
      parameter: 'values',
    });
  return found;
}

function forceOf(req: Request): boolean {
  const raw = req.query.force;
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new AppError('invalid_parameter', 'Parameter "force" must be true or false.', { parameter: 'force' });
}

type ConnectionDeps = Pick<AppDeps, 'connections' | 'spreadsheets'>;

/**
 * A connection as the admin API shows it, with `reading`: `{ fraction }` while its first read is under way and
 * nothing can be answered from it yet (a large workbook after a start: the dashboard shows a progress bar), else
 * null. Asking does not open the spreadsheet.
 */
function withReading(deps: Pick<AppDeps, 'spreadsheets'>, connection: ConnectionRecord) {
  const fraction = deps.spreadsheets.readProgress(connection.spreadsheetId);
  return { ...adminConnectionJson(connection), reading: fraction === null ? null : { fraction } };
}

export function mountAdminConnectionRoutes(
  routes: RouteTable,
  deps: ConnectionDeps & Pick<AppDeps, 'sourceOptions'>,
): void {
  routes.get('/admin/connections', 'admin', async (_req, res) => {
    res.json({ data: (await deps.connections.list()).map((c) => withReading(deps, c)) });
  });

  routes.post('/admin/connections', 'admin', connect(deps));

  // With its tabs: reading them may fail (a moved file) and answers the source's error then.
  routes.get('/admin/connections/:id', 'admin', async (req, res) => {
    const connection = await connectionNamed(deps, req);
    const snapshot = await deps.spreadsheets.of(connection).read();
    res.json({ ...describeSpreadsheet(connection, snapshot), location: connection.location });
  });

  routes.patch('/admin/connections/:id', 'admin', async (req, res) => {
    const connection = await connectionNamed(deps, req);
    const body = adminBody(req.body, ['public_read']);
    if (typeof body.public_read !== 'boolean') {
      throw new AppError('invalid_body', '"public_read" must be true or false.', { field: 'public_read' });
    }
    await deps.connections.setPublicRead(connection.spreadsheetId, body.public_read);
    const after = await deps.connections.getBySpreadsheetId(connection.spreadsheetId);
    if (!after) throw new AppError('spreadsheet_not_found', 'No spreadsheet with this id or userKey.');
    res.json(withReading(deps, after));
  });

  routes.get('/admin/connections/:id/sheets/:sheet/preview', 'admin', previewTab(deps));

  routes.delete('/admin/connections/:id', 'admin', async (req, res) => {
    // A bad parameter is the caller's mistake whatever the id names, so it is refused first.
    const force = forceOf(req);
    const found = await deps.connections.resolve(String(req.params.id));
    // Removed by the CLI (another process) between the lookup and the removal: not found either way.
    const removal = found ? await deps.connections.removeWithWebhooks(found.spreadsheetId, { force }) : null;
    if (!found || !removal?.removed) {
      throw new AppError('spreadsheet_not_found', 'No spreadsheet with this id or userKey.');
    }
    await deps.spreadsheets.forget(found.spreadsheetId);
    await forgetKept(found, deps.sourceOptions);
    res.json({
      removed: true,
      spreadsheet_id: found.spreadsheetId,
      name: found.name,
      webhooks_removed: removal.webhooksRemoved.length,
    });
  });
}

/** `POST /admin/connections`: the use case `sheetport connect` runs; 201 when the spreadsheet is new. */
function connect(deps: Pick<AppDeps, 'connections' | 'sourceOptions'>): RequestHandler {
  return async (req, res) => {
    const fields = connectBody(req.body);
    const location = stringField(fields, 'location', true) as string;
    const kind = stringField(fields, 'kind', false);
    const name = stringField(fields, 'name', false);
    const { connection, snapshot, created } = await connectSpreadsheet(
      deps.connections,
      {
        location,
        ...(kind ? { kind } : {}),
        ...(name ? { name } : {}),
      },
      deps.sourceOptions,
    );
    res.status(created ? 201 : 200).json({
      ...describeSpreadsheet(connection, snapshot),
      location: connection.location,
      created,
    });
  };
}

export async function connectionNamed(
  deps: Pick<AppDeps, 'connections'>,
  req: Pick<Request, 'params'>,
): Promise<ConnectionRecord> {
  const found = await deps.connections.resolve(String(req.params.id));
  if (!found) throw new AppError('spreadsheet_not_found', 'No spreadsheet with this id or userKey.');
  return found;
}

/**
 * The dashboard's preview: the first rows of one tab as arrays in header order, in the row API's `values` modes.
 * Unlike the row API, an empty cell with `values=formatted` is "" (the displayed text as held), not null.
 */
function previewTab(deps: ConnectionDeps): RequestHandler {
  return async (req, res) => {
    const connection = await connectionNamed(deps, req);
    const sheet = String(req.params.sheet);
    const limit = limitParameter(req, PREVIEW_ROWS);
    const values = previewValues(req);
    const tab = await deps.spreadsheets.of(connection).tab({ name: sheet });
    await rowsComplete([tab]);
    const rows =
      values === 'formatted'
        ? tab.formatted
        : values === 'formula'
          ? (tab.withFormulas ?? tab.typed)
          : tab.typed;
    res.json({
      sheet_id: toPublicSheetId(connection.spreadsheetId, tab.sourceSheetId),
      name: tab.name,
      header: tab.header,
      row_count: tab.typed.length,
      values,
      rows: rows.slice(0, limit),
    });
  };
}
