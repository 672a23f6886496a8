/**
 * A verifying receiver (receiver.ts) with a webhook pointing at it, tied by the webhook's secret: the receiver
 * checks every delivery's signatures with the secret the registration returned. Two ways to register, as the
 * product has two: straight in a service context's store (what the CLI does, server running or not), and over
 * HTTP (`POST /v1/webhooks`) as a user does. The caller closes the receiver.
 */
import type { ServiceContext } from '../../server/context.ts';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../server/repositories/webhooks.ts';
import { registerWebhook } from '../../server/webhooks/register.ts';
import type { Harness } from './harness.ts';
import { type Receiver, startReceiver } from './receiver.ts';

export interface WebhookInContextOptions {
  /** The tab, exactly as the workbook names it; People unless given. */
  sheetName?: string;
  /** Every event unless given. */
  events?: WebhookEvent[];
  /** How the receiver answers; 200 `ok` unless given. */
  respond?: Parameters<typeof startReceiver>[1];
}

/**
 * A webhook to `url` on one tab, registered in `context`'s store; the tab is observed first, so its content as of
 * now is where the notifications start.
 */
export async function webhookOnTab(
  context: Pick<ServiceContext, 'spreadsheets' | 'webhooks'>,
  conn: ConnectionRecord,
  url: string,
  options: Omit<WebhookInContextOptions, 'respond'> = {},
): Promise<{ webhookId: string; secret: string; sourceSheetId: string }> {
  const sheetName = options.sheetName ?? 'People';
  const tab = (await context.spreadsheets.of(conn).observe()).tabs.find((t) => t.name === sheetName);
  if (!tab) throw new Error(`no tab ${sheetName} in ${conn.location}`);
  const created = await registerWebhook(context.webhooks, {
    url,
    spreadsheetId: conn.spreadsheetId,
    sheetName,
    sourceSheetId: tab.sourceSheetId,
    events: options.events ?? [...WEBHOOK_EVENTS],
    apiKeyId: null,
  });
  return { webhookId: created.record.id, secret: created.secret, sourceSheetId: tab.sourceSheetId };
}

/** `webhookOnTab` to a new receiver, which checks the signatures with the webhook's secret. */
export async function webhookInContext(
  context: Pick<ServiceContext, 'spreadsheets' | 'webhooks'>,
  conn: ConnectionRecord,
  options: WebhookInContextOptions = {},
): Promise<{ receiver: Receiver; webhookId: string; sourceSheetId: string }> {
  let secret = '';
  const receiver = await startReceiver(() => secret, options.respond);
  const webhook = await webhookOnTab(context, conn, receiver.url, options);
  secret = webhook.secret;
  return { receiver, webhookId: webhook.webhookId, sourceSheetId: webhook.sourceSheetId };
}

/** A webhook on `conn`'s People tab created with `POST /v1/webhooks` (plus `body`), and its receiver. */
export async function webhookOverHttp(
  h: Pick<Harness, 'fetch'>,
  conn: ConnectionRecord,
  body: Record<string, unknown> = {},
): Promise<{ receiver: Receiver; webhookId: string }> {
  let secret = '';
  const receiver = await startReceiver(() => secret);
  const res = await h.fetch('/v1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      url: receiver.url,
      spreadsheet_id: conn.spreadsheetId,
      sheet_name: 'People',
      ...body,
    }),
  });
  const created = (await res.json()) as { webhook_id: string; secret: string };
  if (res.status !== 201) {
    await receiver.close();
    throw new Error(`POST /v1/webhooks answered ${res.status}: ${JSON.stringify(created)}`);
  }
  secret = created.secret;
  return { receiver, webhookId: created.webhook_id };
}
