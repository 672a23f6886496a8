/**
 * What the change recording needs of the `webhooks` table (migration 1), inside its transaction: the webhooks on
 * a tab, their payload timestamps and the tab name they show. Only SQLite's column names are used (id,
 * spreadsheet_id, source_sheet_id, sheet_name, events, status, created_at, last_timestamp_ms), so this holds
 * whatever types migration 1 chose for them: events read as JSON whether stored as JSON text, JSONB or an array.
 */
import type { Queryable } from './pool.ts';

export interface TabWebhook {
  id: string;
  events: string[];
}

/** The webhooks on a tab, oldest first (the order SQLite queues their notifications in). */
export async function webhooksOnTab(
  db: Queryable,
  spreadsheetId: string,
  sourceSheetId: string,
): Promise<TabWebhook[]> {
  const { rows } = await db.query<{ id: string; events: unknown }>(
    `SELECT id, to_jsonb(events) AS events FROM webhooks
     WHERE spreadsheet_id = $1 AND source_sheet_id = $2 ORDER BY created_at, seq`,
    [spreadsheetId, sourceSheetId],
  );
  return rows.map((r) => ({
    id: r.id,
    events: (typeof r.events === 'string' ? JSON.parse(r.events) : r.events) as string[],
  }));
}

/**
 * Takes `count` payload timestamps of a webhook at once and returns the first: they increase strictly per
 * webhook (now, or 1 ms after the last one given), also within one millisecond and across instances.
 */
export async function takeTimestamps(
  db: Queryable,
  webhookId: string,
  nowMs: number,
  count: number,
): Promise<number> {
  const { rows } = await db.query<{ first: number }>(
    `UPDATE webhooks SET last_timestamp_ms = GREATEST($1::bigint, last_timestamp_ms + 1) + $3::bigint - 1
     WHERE id = $2 RETURNING last_timestamp_ms - $3::bigint + 1 AS first`,
    [nowMs, webhookId, count],
  );
  return rows[0]?.first ?? nowMs;
}

/** The webhooks on a renamed tab show its new name; true when one did not already. */
export async function renameTabWebhooks(
  db: Queryable,
  spreadsheetId: string,
  sourceSheetId: string,
  name: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhooks SET sheet_name = $1
     WHERE spreadsheet_id = $2 AND source_sheet_id = $3 AND sheet_name <> $1`,
    [name, spreadsheetId, sourceSheetId],
  );
  return (rowCount ?? 0) > 0;
}
