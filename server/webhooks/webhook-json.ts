import { iso } from '../lib/iso-time.ts';
import type { WebhookHealthRecord } from '../repositories/delivery-log.ts';
import type { WebhookRecord } from '../repositories/webhooks.ts';

/** A webhook as the API and the CLI show it: never the secret. */
export function webhookJson(w: WebhookRecord, sheetName: string = w.sheetName) {
  return {
    webhook_id: w.id,
    url: w.url,
    spreadsheet_id: w.spreadsheetId,
    sheet_name: sheetName,
    events: w.events,
    where: w.condition?.where ?? null,
    columns: w.condition?.columns ?? null,
    status: w.status,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

/** The answer to a registration: the webhook plus its secret, which is shown this once. */
export function createdWebhookJson(w: WebhookRecord, secret: string) {
  const { webhook_id, updated_at: _updated, ...shown } = webhookJson(w);
  return { webhook_id, secret, ...shown };
}

/** Failed attempts in a row from which a webhook is `failing` rather than `warning` (one blip is not an outage). */
export const FAILING_AFTER = 3;

/**
 * A webhook's health for the admin surface: `none` before any attempt, `ok` when the newest attempt succeeded,
 * `warning` after one or two failed attempts in a row, `failing` from FAILING_AFTER on.
 */
export function webhookHealthJson(h: WebhookHealthRecord) {
  const state =
    h.last === null ? 'none' : h.last.ok ? 'ok' : h.failuresInARow >= FAILING_AFTER ? 'failing' : 'warning';
  return {
    state,
    last_attempt_at: h.last === null ? null : iso(h.last.startedAt),
    last_status: h.last?.status ?? null,
    last_error: h.last?.error ?? null,
    failures_in_a_row: h.failuresInARow,
  };
}
