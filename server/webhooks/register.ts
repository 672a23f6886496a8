/**
 * Registering a webhook and rotating its secret: the use cases the API, the dashboard and the CLI share. The
 * secret is made here (webhooks own its format, see secret.ts) and handed to the store, which only keeps it,
 * sealed.
 */
import { AppError } from '../errors.ts';
import type { ReplicaEntry } from '../replica/replica.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type { CreateWebhookInput, WebhookEvent, WebhookRecord, Webhooks } from '../repositories/webhooks.ts';
import type { TabSnapshot } from '../sources/source.ts';
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
  deps: { webhooks: Webhooks; observe: (connection: ConnectionRecord) => Promise<ReplicaEntry> },
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
export async function rotateWebhookSecret(store: Webhooks, id: string): Promise<string | null> {
  const secret = generateSecret();
  return (await store.rotateSecret(id, secret)) ? secret : null;
}
