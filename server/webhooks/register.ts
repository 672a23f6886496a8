/**
 * Registering a webhook and rotating its secret: the use cases the API, the dashboard and the CLI share. The
 * secret is made here (webhooks own its format, see secret.ts) and handed to the store, which only keeps it,
 * sealed.
 */

import type { ConnectionRecord } from '../repositories/connections.ts';
import type {
  CreateWebhookInput,
  WebhookCondition,
  WebhookEvent,
  WebhookRecord,
  Webhooks,
} from '../repositories/webhooks.ts';
import { findTab } from '../spreadsheets/find-tab.ts';
import type { Spreadsheets } from '../spreadsheets/spreadsheets.ts';
import { checkedCondition } from './conditions.ts';
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
  /** As given: checked here against the tab's header (conditions.ts). */
  condition: WebhookCondition | null;
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
    condition: input.condition && checkedCondition(input.condition, tab.header),
    apiKeyId: input.apiKeyId,
  });
}

/** A new secret, shown this once; null when there is no such webhook. */
export async function rotateWebhookSecret(store: Webhooks, id: string): Promise<string | null> {
  const secret = generateSecret();
  return (await store.rotateSecret(id, secret)) ? secret : null;
}

/**
 * A webhook's condition changed: `where` and `columns` each replaced when given (null takes it away), the result
 * checked against the tab's header as it is now.
 */
export async function changedCondition(
  spreadsheets: Spreadsheets,
  connection: ConnectionRecord,
  webhook: WebhookRecord,
  given: Partial<WebhookCondition>,
): Promise<WebhookCondition | null> {
  const merged: WebhookCondition = {
    where: given.where !== undefined ? given.where : (webhook.condition?.where ?? null),
    columns: given.columns !== undefined ? given.columns : (webhook.condition?.columns ?? null),
  };
  if (merged.where === null && merged.columns === null) return null;
  const tab = await spreadsheets.of(connection).tab({ sourceSheetId: webhook.sourceSheetId });
  return checkedCondition(merged, tab.header);
}
