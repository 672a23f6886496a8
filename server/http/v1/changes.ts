import { AppError } from '../../errors.ts';
import { iso } from '../../lib/iso-time.ts';
import type { ChangeEntry } from '../../repositories/change-log.ts';
import type { ConnectionRecord } from '../../repositories/connections.ts';
import { parsePaging, singleQuery } from '../../rows/query-params.ts';
import type { TabRef } from '../../spreadsheets/find-tab.ts';
import type { AppDeps } from '../deps.ts';
import { setPagingHeaders } from '../paging.ts';
import type { RouteRequest, RouteResponse, RouteTable } from '../route-table.ts';

export const CHANGE_FEED_LIMITS = { defaultLimit: 100, maxLimit: 500 };

function invalidParameter(parameter: string, message: string): AppError {
  return new AppError('invalid_parameter', message, { parameter });
}

// 2024-03-01T09:30:00Z, with optional fractional seconds, `Z` or `+00:00` (an unencoded `+` in a query string
// arrives as a space: ` 00:00` can only have meant `+00:00`, so it is taken as that).
const UTC_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+ ]00:00|[+-]\d{2}:?\d{2})$/;

/**
 * An ISO 8601 UTC instant (`2024-03-01T09:30:00Z`, `2024-03-01T09:30:00.250Z`, `...+00:00`) as epoch ms.
 * Digits past milliseconds are dropped (the change log counts in ms, and "after 09:30:00.1235" is "after
 * 09:30:00.123" for changes stamped in whole ms). A date alone, another offset or anything else: 400.
 */
export function parseUtcInstant(raw: string, parameter: string): number {
  const example = 'e.g. 2024-03-01T09:30:00Z';
  const m = UTC_INSTANT.exec(raw);
  if (!m) {
    throw invalidParameter(
      parameter,
      `Parameter "${parameter}" must be an ISO 8601 UTC date and time (${example} or with +00:00).`,
    );
  }
  const [, y, mo, d, h, mi, s, fraction = '', zone = ''] = m;
  if (!/^([Zz]|[+ ]00:00)$/.test(zone)) {
    throw invalidParameter(
      parameter,
      `Parameter "${parameter}" must be in UTC (Z or +00:00), not ${zone.trim()}; ${example}.`,
    );
  }
  const ms = fraction.padEnd(3, '0').slice(0, 3);
  const normal = `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`;
  const value = Date.parse(normal);
  // Date.parse rolls 2024-02-30 over to March 1st: a date that does not exist is refused instead.
  if (Number.isNaN(value) || new Date(value).toISOString() !== normal) {
    throw invalidParameter(parameter, `Parameter "${parameter}" is not a real date and time: ${raw}.`);
  }
  return value;
}

function entryJson(e: ChangeEntry) {
  return {
    row_index: e.row_index,
    change: e.change,
    updated_at: iso(e.updatedAt),
    values: e.values,
  };
}

/**
 * The change feed (docs/api.md, "Change feed"): the rows of one tab inserted, updated or deleted after the
 * `updated_since` instant, oldest change first, by the tab's name (`GET /v1/spreadsheets/{id}/rows?sheet=NAME`)
 * or by its sheet_id (`GET /v1/sheets/{sheetId}/changes`); both answer through `answerChangeFeed`. A change is
 * recorded when SheetPort sees it: its own writes at once, an edit saved by another program when the source says
 * it changed (the follower), or when this route looks first.
 */
type ChangeFeedDeps = Pick<AppDeps, 'spreadsheets' | 'changeLog'>;

export function mountChangeFeedRoutes(routes: RouteTable, deps: ChangeFeedDeps): void {
  routes.get('/v1/spreadsheets/:id/rows', { access: 'read', resource: 'connection' }, (req, res, ctx) => {
    const sheet = singleQuery(req.query as Record<string, unknown>, 'sheet');
    if (sheet === undefined || sheet === '') {
      throw invalidParameter('sheet', 'Parameter "sheet" (the tab name) is required.');
    }
    return answerChangeFeed(deps, req, res, ctx.connection, { name: sheet });
  });
  routes.get('/v1/sheets/:sheetId/changes', { access: 'read', resource: 'tab' }, (req, res, ctx) =>
    answerChangeFeed(deps, req, res, ctx.connection, { sourceSheetId: ctx.tab.sourceSheetId }),
  );
}

/** One page of a tab's change feed, from `updated_since`, `limit` and `offset`, with its paging headers. */
async function answerChangeFeed(
  deps: ChangeFeedDeps,
  req: RouteRequest,
  res: RouteResponse,
  connection: ConnectionRecord,
  ref: TabRef,
): Promise<void> {
  const query = req.query as Record<string, unknown>;
  const since = singleQuery(query, 'updated_since');
  if (since === undefined || since === '') {
    throw invalidParameter(
      'updated_since',
      'Parameter "updated_since" (an ISO 8601 UTC instant, e.g. 2024-03-01T09:30:00Z) is required.',
    );
  }
  const sinceMs = parseUtcInstant(since, 'updated_since');
  const { limit, offset } = parsePaging(query, CHANGE_FEED_LIMITS);
  // Observed first: an edit saved by another program since the last look is in the feed it answers with.
  const spreadsheet = deps.spreadsheets.of(connection);
  await spreadsheet.observe();
  const tab = await spreadsheet.tab(ref);
  const page = await deps.changeLog.page(connection.spreadsheetId, tab.sourceSheetId, sinceMs, limit, offset);
  setPagingHeaders(req, res, page.total, limit, offset);
  res.json({
    data: page.data.map(entryJson),
    meta: {
      total: page.total,
      limit,
      offset,
      next_updated_since: new Date(page.newest ?? sinceMs).toISOString(),
    },
  });
}
