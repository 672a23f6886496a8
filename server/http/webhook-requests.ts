/**
 * Registering and changing a webhook over HTTP: the body rules and the steps `/v1/webhooks` and the dashboard's
 * `/admin/webhooks` share (who may do it is each route's business: a key's reach, or the admin token).
 */
import { AppError } from '../errors.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type { DeliveryRecord } from '../repositories/deliveries.ts';
import type {
  WebhookChange,
  WebhookCondition,
  WebhookRecord,
  WebhookStatus,
} from '../repositories/webhooks.ts';
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../repositories/webhooks.ts';
import { changedCondition, registerWebhookOnTab } from '../webhooks/register.ts';
import { replayDelivery } from '../webhooks/replay.ts';
import { validateWebhookUrl } from '../webhooks/target-safety.ts';
import type { AppDeps } from './deps.ts';

/** What registering a webhook uses (createWebhookFromBody). */
export type CreateWebhookDeps = Pick<
  AppDeps,
  'allowLanWebhooks' | 'connections' | 'webhooks' | 'spreadsheets'
>;
/** What changing one uses (patchWebhookFromBody). */
export type PatchWebhookDeps = Pick<
  AppDeps,
  'allowLanWebhooks' | 'connections' | 'webhooks' | 'spreadsheets' | 'wakeDeliveries'
>;
/** What naming a webhook's tab as it is now uses (currentSheetName). */
export type SheetNameDeps = Pick<AppDeps, 'connections' | 'spreadsheets'>;
/** What a replay uses (replayFromRequest). */
export type ReplayDeps = Pick<AppDeps, 'deliveries' | 'now' | 'wakeDeliveries'>;

const CREATE_KEYS = ['url', 'spreadsheet_id', 'sheet_name', 'events', 'where', 'columns'] as const;
const PATCH_KEYS = ['url', 'events', 'status', 'where', 'columns'] as const;
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

/**
 * `where` and `columns` as the body gives them: each left out (undefined), null, or a value of its type. Their
 * meaning is checked against the tab (webhooks/conditions.ts); a `where` that cannot be read is a body error
 * pointing at its position.
 */
function conditionFromBody(body: Record<string, unknown>): Partial<WebhookCondition> {
  const given: Partial<WebhookCondition> = {};
  if (body.where !== undefined) {
    if (body.where !== null && typeof body.where !== 'string') {
      throw invalidBody(
        '"where" must be a string (an expression, as in GET .../rows?where=) or null.',
        'where',
      );
    }
    given.where = body.where;
  }
  if (body.columns !== undefined) given.columns = columnsFromBody(body.columns);
  return given;
}

function columnsFromBody(raw: unknown): string[] | null {
  if (raw === null) return null;
  if (!Array.isArray(raw) || raw.some((c) => typeof c !== 'string' || c === '')) {
    throw invalidBody('"columns" must be an array of column names (non-empty strings) or null.', 'columns');
  }
  if (raw.length > 1000) throw invalidBody('"columns" names more than 1,000 columns.', 'columns');
  const repeated = raw.find((c, i) => raw.indexOf(c) !== i);
  if (repeated !== undefined) throw invalidBody(`"columns" lists "${repeated}" more than once.`, 'columns');
  return raw as string[];
}

/** A `where` that cannot be read is a fault of the body's field, not of a query parameter. */
async function asBodyField<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'invalid_parameter' || err.details.parameter !== 'where') {
      throw err;
    }
    const { parameter: _parameter, ...details } = err.details;
    throw new AppError('invalid_body', err.message.replace(/^Parameter "where"/, '"where"'), {
      field: 'where',
      ...details,
    });
  }
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
  const given = conditionFromBody(body);
  const condition = { where: given.where ?? null, columns: given.columns ?? null };
  return asBodyField(() =>
    registerWebhookOnTab(
      { webhooks: deps.webhooks, spreadsheets: deps.spreadsheets },
      { connection, sheetName, url: url.toString(), events, condition, apiKeyId: options.apiKeyId },
    ),
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
    throw invalidBody(
      'Nothing to change: send one or more of "url", "events", "status", "where", "columns".',
    );
  }
  const change: WebhookChange = {};
  if (body.url !== undefined) {
    change.url = validateWebhookUrl(body.url, { allowLan: deps.allowLanWebhooks }).url.toString();
  }
  if (body.events !== undefined) change.events = eventsFromBody(body.events);
  if (body.status !== undefined) change.status = parseStatus(body.status);
  const given = conditionFromBody(body);
  if (Object.keys(given).length > 0) change.condition = await conditionChange(deps, webhook, given);
  const updated = await deps.webhooks.update(webhook.id, change);
  if (!updated) throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
  // Resumed (or re-pointed): notifications queued meanwhile go out now.
  if (updated.status === 'active') deps.wakeDeliveries?.();
  return updated;
}

async function conditionChange(
  deps: PatchWebhookDeps,
  webhook: WebhookRecord,
  given: Partial<WebhookCondition>,
): Promise<WebhookCondition | null> {
  const connection = await deps.connections.getBySpreadsheetId(webhook.spreadsheetId);
  if (!connection)
    throw new AppError('spreadsheet_not_found', `No spreadsheet with id "${webhook.spreadsheetId}".`);
  return asBodyField(() => changedCondition(deps.spreadsheets, connection, webhook, given));
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
