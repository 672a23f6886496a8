import type { Request, Response } from 'express';
import { AppError } from '../../errors.ts';
import type { ApiKeyRecord } from '../../store/api-keys.ts';
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from '../../store/webhook-events.ts';
import type { WebhookRecord, WebhookStatus } from '../../store/webhooks.ts';
import { registerWebhook, rotateWebhookSecret } from '../../webhooks/register.ts';
import { validateWebhookUrl } from '../../webhooks/target-safety.ts';
import { createdWebhookJson, webhookJson } from '../../webhooks/webhook-json.ts';
import { apiKeyOf, authorize } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import type { RouteTable } from '../route-table.ts';

const CREATE_KEYS = ['url', 'spreadsheet_id', 'sheet_name', 'events'] as const;
const PATCH_KEYS = ['url', 'events', 'status'] as const;
const STATUSES: readonly WebhookStatus[] = ['active', 'paused'];

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function invalidBody(message: string, field?: string): AppError {
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
export function parseEvents(raw: unknown): WebhookEvent[] {
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

/** A webhook as clients see it: never the secret. */

/** Webhooks are visible to keys that may reach their spreadsheet (a key limited to none reaches all). */
export function keyReaches(key: ApiKeyRecord, w: WebhookRecord): boolean {
  return key.connections.length === 0 || key.connections.includes(w.spreadsheetId);
}

function requireWriteScope(key: ApiKeyRecord): void {
  if (key.scope !== 'read_write') {
    throw new AppError(
      'forbidden',
      'This API key is read-only; webhook changes need a key with scope read_write.',
    );
  }
}

/**
 * The webhook named in the path, if this key may see it (404 `not_found` otherwise, so ids on spreadsheets the
 * key cannot reach are not revealed); `write` also needs scope read_write (403).
 */
export function webhookOf(res: Response, deps: AppDeps, id: string, access: 'read' | 'write'): WebhookRecord {
  const key = apiKeyOf(res);
  const webhook = deps.webhooks.get(id);
  if (!webhook || !keyReaches(key, webhook)) throw new AppError('not_found', `No webhook with id "${id}".`);
  if (access === 'write') requireWriteScope(key);
  return webhook;
}

/**
 * `/v1/webhooks`: register, list, read, change, pause/resume, delete and rotate the secret. Every change needs a
 * read_write key; reads need any key that may reach the webhook's spreadsheet.
 */
export function mountWebhookRoutes(routes: RouteTable, deps: AppDeps): void {
  /** The tab's current name (payloads carry it too); the registered name when the workbook cannot be read. */
  const currentSheetName = async (w: WebhookRecord): Promise<string> => {
    const connection = deps.connections.getBySpreadsheetId(w.spreadsheetId);
    if (!connection) return w.sheetName;
    try {
      return (await deps.replica.get(connection)).bySourceSheetId.get(w.sourceSheetId)?.name ?? w.sheetName;
    } catch {
      return w.sheetName;
    }
  };
  const present = async (w: WebhookRecord) => webhookJson(w, await currentSheetName(w));

  routes.post('/v1/webhooks', 'write', async (req, res) => {
    const key = apiKeyOf(res);
    requireWriteScope(key);
    const body = objectBody(req.body, CREATE_KEYS);
    const { url } = validateWebhookUrl(body.url, { allowLan: deps.allowLanWebhooks });
    const spreadsheetId = requiredString(body, 'spreadsheet_id');
    const sheetName = requiredString(body, 'sheet_name');
    const events = body.events === undefined ? [...WEBHOOK_EVENTS] : parseEvents(body.events);
    const connection = deps.connections.getBySpreadsheetId(spreadsheetId);
    if (!connection) {
      throw new AppError('spreadsheet_not_found', `No spreadsheet with id "${spreadsheetId}".`, {
        field: 'spreadsheet_id',
      });
    }
    authorize(res, connection, 'write');
    // Reading the tab here also records its first baseline, so the very next change is notified.
    const tab = (await deps.replica.get(connection)).byName.get(sheetName);
    if (!tab) {
      throw new AppError('sheet_not_found', `No tab named "${sheetName}" in this spreadsheet.`, {
        sheet: sheetName,
      });
    }
    const { record, secret } = registerWebhook(deps.webhooks, {
      url: url.toString(),
      spreadsheetId: connection.spreadsheetId,
      sheetName: tab.name,
      sourceSheetId: tab.sourceSheetId,
      events,
      apiKeyId: key.id,
    });
    res.setHeader('Location', `/v1/webhooks/${encodeURIComponent(record.id)}`);
    res.status(201).json(createdWebhookJson(record, secret));
  });

  routes.get('/v1/webhooks', 'read', async (_req, res) => {
    const key = apiKeyOf(res);
    const visible = deps.webhooks.list().filter((w) => keyReaches(key, w));
    res.json({ data: await Promise.all(visible.map(present)) });
  });

  const idOf = (req: Request) => String(req.params.id);

  routes.get('/v1/webhooks/:id', 'read', async (req, res) => {
    res.json(await present(webhookOf(res, deps, idOf(req), 'read')));
  });

  routes.patch('/v1/webhooks/:id', 'write', async (req, res) => {
    const webhook = webhookOf(res, deps, idOf(req), 'write');
    const body = objectBody(req.body, PATCH_KEYS);
    if (Object.keys(body).length === 0) {
      throw invalidBody('Nothing to change: send one or more of "url", "events", "status".');
    }
    const change: { url?: string; events?: WebhookEvent[]; status?: WebhookStatus } = {};
    if (body.url !== undefined) {
      change.url = validateWebhookUrl(body.url, { allowLan: deps.allowLanWebhooks }).url.toString();
    }
    if (body.events !== undefined) change.events = parseEvents(body.events);
    if (body.status !== undefined) change.status = parseStatus(body.status);
    const updated = deps.webhooks.update(webhook.id, change);
    if (!updated) throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
    // Resumed (or re-pointed): notifications queued meanwhile go out now.
    if (updated.status === 'active') deps.wakeDeliveries?.();
    res.json(await present(updated));
  });

  routes.delete('/v1/webhooks/:id', 'write', (req, res) => {
    const webhook = webhookOf(res, deps, idOf(req), 'write');
    // Its deliveries and their attempts go with it (foreign keys cascade).
    if (!deps.webhooks.remove(webhook.id))
      throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
    res.json({ deleted: true, webhook_id: webhook.id });
  });

  routes.post('/v1/webhooks/:id/rotate-secret', 'write', (req, res) => {
    const webhook = webhookOf(res, deps, idOf(req), 'write');
    if (req.body !== undefined && !(isPlainObject(req.body) && Object.keys(req.body).length === 0)) {
      throw invalidBody('rotate-secret takes no body (or an empty object).');
    }
    const secret = rotateWebhookSecret(deps.webhooks, webhook.id);
    if (secret === null) throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
    res.json({ webhook_id: webhook.id, secret });
  });
}
