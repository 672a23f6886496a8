/**
 * Registering a webhook and rotating its secret: the use cases the API, the dashboard and the CLI share. The
 * secret is made here (webhooks own its format, see secret.ts) and handed to the store, which only keeps it,
 * sealed.
 */

import type { ConnectionRecord } from '../repositories/connections.ts';
import type { CreateWebhookInput, WebhookEvent, WebhookRecord, Webhooks } from '../repositories/webhooks.ts';
import { findTab } from '../spreadsheets/find-tab.ts';
import type { Spreadsheets } from '../spreadsheets/spreadsheets.ts';
import { generateSecret } from './secret.ts';

/** The new webhook and its secret, which is shown this once. */
export async function registerWebhook(
  store: Webhooks,
  input: Omit<CreateWebhookInput, 'secret'>,
): Promise<{ record: WebhookRecord; secret: string }> {
  const secret = generateSecret();
  return { record: await store.create({ ...input, secret }), secret };
}

export interface WebhookOnTab {
  connection: ConnectionRecord;
  /** The tab's name, found by the one rule of spreadsheets/find-tab.ts. */
  sheetName: string;
  /** Already checked (target-safety.ts). */
  url: string;
  events: WebhookEvent[];
  apiKeyId: string | null;
}

/**
 * A webhook on a tab named by the user. The spreadsheet is observed first (`Spreadsheet.observe` records its
 * content as of now), so the very next change to the tab is notified, whoever registered the webhook.
 */
export async function registerWebhookOnTab(
  deps: { webhooks: Webhooks; spreadsheets: Spreadsheets },
  input: WebhookOnTab,
): Promise<{ record: WebhookRecord; secret: string }> {
  const snapshot = await deps.spreadsheets.of(input.connection).observe();
  const tab = findTab(snapshot, { name: input.sheetName });
  return registerWebhook(deps.webhooks, {
    url: input.url,
    spreadsheetId: input.connection.spreadsheetId,
    sheetName: tab.name,
    sourceSheetId: tab.sourceSheetId,
    events: input.events,
    apiKeyId: input.apiKeyId,
  });
}

/** A new secret, shown this once; null when there is no such webhook. */
export async function rotateWebhookSecret(store: Webhooks, id: string): Promise<string | null> {
  const secret = generateSecret();
  return (await store.rotateSecret(id, secret)) ? secret : null;
}
