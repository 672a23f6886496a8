/**
 * Registering and changing a webhook over HTTP: the body rules and the steps `/v1/webhooks` and the dashboard's
 * `/admin/webhooks` share (who may do it is each route's business: a key's reach, or the admin token).
 */
import { AppError } from '../errors.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type { DeliveryRecord } from '../repositories/deliveries.ts';
import type { WebhookRecord, WebhookStatus } from '../repositories/webhooks.ts';
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../repositories/webhooks.ts';
import { registerWebhookOnTab } from '../webhooks/register.ts';
import { replayDelivery } from '../webhooks/replay.ts';
import { validateWebhookUrl } from '../webhooks/target-safety.ts';
import type { AppDeps } from './deps.ts';

/** What registering a webhook uses (createWebhookFromBody). */
export type CreateWebhookDeps = Pick<
  AppDeps,
  'allowLanWebhooks' | 'connections' | 'webhooks' | 'spreadsheets'
>;
/** What changing one uses (patchWebhookFromBody). */
export type PatchWebhookDeps = Pick<AppDeps, 'allowLanWebhooks' | 'webhooks' | 'wakeDeliveries'>;
/** What naming a webhook's tab as it is now uses (currentSheetName). */
export type SheetNameDeps = Pick<AppDeps, 'connections' | 'spreadsheets'>;
/** What a replay uses (replayFromRequest). */
export type ReplayDeps = Pick<AppDeps, 'deliveries' | 'now' | 'wakeDeliveries'>;

const CREATE_KEYS = ['url', 'spreadsheet_id', 'sheet_name', 'events'] as const;
const PATCH_KEYS = ['url', 'events', 'status'] as const;
const STATUSES: readonly WebhookStatus[] = ['active', 'paused'];

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function invalidBody(message: string, field?: string): AppError {
  return new AppError('invalid_body', message, field === undefined ? {} : { field });
}

/** A JSON object holding only `allowed` keys; an unknown key is named, so a typo is never silently dropped. */
function objectBody(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(body)) {
    throw invalidBody(`Request body must be a JSON object with ${allowed.map((k) => `"${k}"`).join(', ')}.`);
  }
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  if (extra !== undefined) {
    throw invalidBody(
      `Unexpected key "${extra}" in the body; allowed: ${allowed.map((k) => `"${k}"`).join(', ')}.`,
      extra,
    );
  }
  return body;
}

function requiredString(body: Record<string, unknown>, field: string): string {
  const v = body[field];
  if (v === undefined) throw invalidBody(`"${field}" is required.`, field);
  if (typeof v !== 'string' || v === '') throw invalidBody(`"${field}" must be a non-empty string.`, field);
  return v;
}

/** A non-empty array of distinct known event types. */
function eventsFromBody(raw: unknown): WebhookEvent[] {
  const known = WEBHOOK_EVENTS.join(', ');
  if (!Array.isArray(raw))
    throw invalidBody(`"events" must be an array of event types (${known}).`, 'events');
  if (raw.length === 0) {
    throw invalidBody(`"events" is empty; name at least one of ${known}, or leave it out for all.`, 'events');
  }
  const seen = new Set<WebhookEvent>();
  for (const e of raw) {
    if (!isWebhookEvent(e)) {
      throw invalidBody(`Unknown event type ${JSON.stringify(e)} in "events"; known: ${known}.`, 'events');
    }
    if (seen.has(e)) throw invalidBody(`"events" lists "${e}" more than once.`, 'events');
    seen.add(e);
  }
  return [...seen];
}

function parseStatus(raw: unknown): WebhookStatus {
  if (typeof raw !== 'string' || !(STATUSES as readonly string[]).includes(raw)) {
    throw invalidBody('"status" must be "active" or "paused".', 'status');
  }
  return raw as WebhookStatus;
}

/**
 * Registers a webhook from a create body. `authorize` runs once the spreadsheet is known (a key's reach, from
 * the route pipeline; the admin surface reaches every spreadsheet); the secret in the answer is shown this once.
 */
export async function createWebhookFromBody(
  deps: CreateWebhookDeps,
  rawBody: unknown,
  options: { apiKeyId: string | null; authorize: (connection: ConnectionRecord) => void },
): Promise<{ record: WebhookRecord; secret: string }> {
  const body = objectBody(rawBody, CREATE_KEYS);
  const { url } = validateWebhookUrl(body.url, { allowLan: deps.allowLanWebhooks });
  const spreadsheetId = requiredString(body, 'spreadsheet_id');
  const sheetName = requiredString(body, 'sheet_name');
  const events = body.events === undefined ? [...WEBHOOK_EVENTS] : eventsFromBody(body.events);
  const connection = await deps.connections.getBySpreadsheetId(spreadsheetId);
  if (!connection) {
    throw new AppError('spreadsheet_not_found', `No spreadsheet with id "${spreadsheetId}".`, {
      field: 'spreadsheet_id',
    });
  }
  options.authorize(connection);
  return registerWebhookOnTab(
    { webhooks: deps.webhooks, spreadsheets: deps.spreadsheets },
    { connection, sheetName, url: url.toString(), events, apiKeyId: options.apiKeyId },
  );
}

/** Applies a patch body (url, events, status) and wakes the worker when the webhook is active afterwards. */
export async function patchWebhookFromBody(
  deps: PatchWebhookDeps,
  webhook: WebhookRecord,
  rawBody: unknown,
): Promise<WebhookRecord> {
  const body = objectBody(rawBody, PATCH_KEYS);
  if (Object.keys(body).length === 0) {
    throw invalidBody('Nothing to change: send one or more of "url", "events", "status".');
  }
  const change: { url?: string; events?: WebhookEvent[]; status?: WebhookStatus } = {};
  if (body.url !== undefined) {
    change.url = validateWebhookUrl(body.url, { allowLan: deps.allowLanWebhooks }).url.toString();
  }
  if (body.events !== undefined) change.events = eventsFromBody(body.events);
  if (body.status !== undefined) change.status = parseStatus(body.status);
  const updated = await deps.webhooks.update(webhook.id, change);
  if (!updated) throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
  // Resumed (or re-pointed): notifications queued meanwhile go out now.
  if (updated.status === 'active') deps.wakeDeliveries?.();
  return updated;
}

/** rotate-secret and replay take no body, or an empty object. */
export function requireNoBody(body: unknown, what: string): void {
  if (body !== undefined && !(isPlainObject(body) && Object.keys(body).length === 0)) {
    throw invalidBody(`${what} takes no body (or an empty object).`);
  }
}

/** The tab's current name (payloads carry it too); the registered name when the workbook cannot be read. */
export async function currentSheetName(deps: SheetNameDeps, w: WebhookRecord): Promise<string> {
  const connection = await deps.connections.getBySpreadsheetId(w.spreadsheetId);
  if (!connection) return w.sheetName;
  try {
    return (await deps.spreadsheets.of(connection).tab({ sourceSheetId: w.sourceSheetId })).name;
  } catch {
    return w.sheetName;
  }
}

/** A replay asked for over HTTP (`/v1` and the dashboard): no body, then a new attempt now; the 202 answer. */
export async function replayFromRequest(deps: ReplayDeps, delivery: DeliveryRecord, body: unknown) {
  requireNoBody(body, 'replay');
  await replayDelivery(deps.deliveries, delivery, deps.now());
  deps.wakeDeliveries?.();
  return { delivery_id: delivery.id, state: 'pending' as const };
}
