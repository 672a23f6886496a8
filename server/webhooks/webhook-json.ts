import type { WebhookRecord } from '../store/webhooks.ts';

/** A webhook as the API and the CLI show it: never the secret. */
export function webhookJson(w: WebhookRecord, sheetName: string = w.sheetName) {
  return {
    webhook_id: w.id,
    url: w.url,
    spreadsheet_id: w.spreadsheetId,
    sheet_name: sheetName,
    events: w.events,
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
