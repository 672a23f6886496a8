/**
 * Registering a webhook and rotating its secret: the use cases the API, the dashboard and the CLI share. The
 * secret is made here (webhooks own its format, see secret.ts) and handed to the store, which only keeps it,
 * sealed.
 */
import { AppError } from '../errors.ts';
import type { ReplicaEntry } from '../replica/replica.ts';
import type { TabSnapshot } from '../sources/source.ts';
import type { ConnectionRecord } from '../store/connections.ts';
import type { WebhookEvent } from '../store/webhook-events.ts';
import type { CreateWebhookInput, WebhookRecord, WebhookStore } from '../store/webhooks.ts';
import { generateSecret } from './secret.ts';

/** The new webhook and its secret, which is shown this once. */
export function registerWebhook(
  store: WebhookStore,
  input: Omit<CreateWebhookInput, 'secret'>,
): { record: WebhookRecord; secret: string } {
  const secret = generateSecret();
  return { record: store.create({ ...input, secret }), secret };
}

export interface WebhookOnTab {
  connection: ConnectionRecord;
  /** The tab's name: exact, or differing only in case from exactly one tab. */
  sheetName: string;
  /** Already checked (target-safety.ts). */
  url: string;
  events: WebhookEvent[];
  apiKeyId: string | null;
}

/**
 * A webhook on a tab named by the user. The spreadsheet is observed first (replica.observe records its content
 * as of now), so the very next change to the tab is notified, whoever registered the webhook.
 */
export async function registerWebhookOnTab(
  deps: { webhooks: WebhookStore; observe: (connection: ConnectionRecord) => Promise<ReplicaEntry> },
  input: WebhookOnTab,
): Promise<{ record: WebhookRecord; secret: string }> {
  const { snapshot } = await deps.observe(input.connection);
  const tab = findTab(snapshot.tabs, input.sheetName);
  return registerWebhook(deps.webhooks, {
    url: input.url,
    spreadsheetId: input.connection.spreadsheetId,
    sheetName: tab.name,
    sourceSheetId: tab.sourceSheetId,
    events: input.events,
    apiKeyId: input.apiKeyId,
  });
}

/** The tab named `name`: the exact match, else the one tab whose name differs only in case. */
export function findTab(tabs: readonly TabSnapshot[], name: string): TabSnapshot {
  const exact = tabs.find((t) => t.name === name);
  if (exact) return exact;
  const folded = tabs.filter((t) => t.name.toLowerCase() === name.toLowerCase());
  if (folded.length === 1) return folded[0] as TabSnapshot;
  const names = tabs.map((t) => `"${t.name}"`).join(', ') || '(none)';
  throw new AppError('sheet_not_found', `No tab named "${name}" in this spreadsheet; its tabs: ${names}.`, {
    sheet: name,
  });
}

/** A new secret, shown this once; null when there is no such webhook. */
export function rotateWebhookSecret(store: WebhookStore, id: string): string | null {
  const secret = generateSecret();
  return store.rotateSecret(id, secret) ? secret : null;
}
