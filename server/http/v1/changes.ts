import { AppError } from '../../errors.ts';
import { iso } from '../../lib/iso-time.ts';
import { parsePaging, singleQuery } from '../../rows/query-params.ts';
import type { ChangeEntry } from '../../store/change-log.ts';
import { authorize } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import { setPagingHeaders } from '../paging.ts';
import type { RouteTable } from '../route-table.ts';

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
 * The change feed (docs/api.md, "Change feed"): `GET /v1/spreadsheets/{id}/rows?sheet=NAME&updated_since=ISO` lists the rows
 * inserted, updated or deleted after the instant, oldest change first. A change is recorded when SheetPort
 * sees it: its own writes at once, an edit saved by another program when the source says it changed (the
 * follower), or when this route looks first.
 */
export function mountChangeFeedRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.get('/v1/spreadsheets/:id/rows', 'read', async (req, res) => {
    const id = String(req.params.id);
    const connection = await deps.connections.getBySpreadsheetId(id);
    if (!connection) throw new AppError('spreadsheet_not_found', `No spreadsheet with id "${id}".`);
    authorize(res, connection, 'read');
    const query = req.query as Record<string, unknown>;
    const sheet = singleQuery(query, 'sheet');
    if (sheet === undefined || sheet === '') {
      throw invalidParameter('sheet', 'Parameter "sheet" (the tab name) is required.');
    }
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
    const tab = (await deps.replica.observe(connection)).byName.get(sheet);
    if (!tab)
      throw new AppError('sheet_not_found', `No tab named "${sheet}" in this spreadsheet.`, { sheet });
    const page = deps.changeLog.page(connection.spreadsheetId, tab.sourceSheetId, sinceMs, limit, offset);
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
  });
}
