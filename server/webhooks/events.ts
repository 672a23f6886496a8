import type { RowChange } from '../diff/row-diff.ts';
import type { WebhookEvent } from '../repositories/webhooks.ts';
import { rowObject } from '../rows/formats/index.ts';
import type { CellValue } from '../sources/source.ts';

/** One changed row as the diff gives it (values in header order). */
export type ChangedRow = RowChange;

export interface ChangedRowEntry {
  row_index: number;
  before: Record<string, CellValue> | null;
  after: Record<string, CellValue> | null;
}

export interface Notification {
  event: WebhookEvent;
  changed_rows: ChangedRowEntry[];
  truncated?: true;
}

export interface EventRules {
  /** A change touching more rows than this is one bulk.import (docs/api.md, "Events": 100, configurable). */
  bulkThreshold: number;
  /** Entries per bulk.import payload (seed: 500). */
  maxEntries: number;
}

export const DEFAULT_EVENT_RULES: EventRules = { bulkThreshold: 100, maxEntries: 500 };

const EVENT_OF = { inserted: 'row.inserted', updated: 'row.updated', deleted: 'row.deleted' } as const;

/**
 * The notifications one change of a tab produces (docs/api.md, "Events"): more than `bulkThreshold` changed rows is one
 * bulk.import with at most `maxEntries` entries (and `truncated: true` when there were more); otherwise one
 * notification per event type that occurred, in the order inserted, updated, deleted, each with all its rows.
 * `before` is keyed by the old header, `after` by the new one.
 */
export function buildNotifications(
  changes: readonly ChangedRow[],
  oldHeader: readonly string[],
  newHeader: readonly string[],
  rules: EventRules = DEFAULT_EVENT_RULES,
): Notification[] {
  if (changes.length === 0) return [];
  const entry = (c: ChangedRow): ChangedRowEntry => ({
    row_index: c.row_index,
    before: c.before ? rowObject([...oldHeader], c.before) : null,
    after: c.after ? rowObject([...newHeader], c.after) : null,
  });
  if (changes.length > rules.bulkThreshold) {
    const kept = changes.slice(0, rules.maxEntries).map(entry);
    return [
      {
        event: 'bulk.import',
        changed_rows: kept,
        ...(changes.length > rules.maxEntries ? { truncated: true as const } : {}),
      },
    ];
  }
  const out: Notification[] = [];
  for (const kind of ['inserted', 'updated', 'deleted'] as const) {
    const rows = changes.filter((c) => c.kind === kind);
    if (rows.length > 0) out.push({ event: EVENT_OF[kind], changed_rows: rows.map(entry) });
  }
  return out;
}

/** The seed's payload (section 2.6), as the exact bytes that are signed and sent. */
export function payloadJson(input: {
  webhookId: string;
  notification: Notification;
  spreadsheetId: string;
  sheetName: string;
  timestampMs: number;
}): string {
  return JSON.stringify({
    webhook_id: input.webhookId,
    event: input.notification.event,
    spreadsheet_id: input.spreadsheetId,
    sheet_name: input.sheetName,
    timestamp: new Date(input.timestampMs).toISOString(),
    changed_rows: input.notification.changed_rows,
    ...(input.notification.truncated ? { truncated: true } : {}),
  });
}
