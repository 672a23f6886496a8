import type { Request, Response } from 'express';
import { AppError } from '../../errors.ts';
import type { ApiKeyRecord } from '../../repositories/keys.ts';
import type { WebhookRecord } from '../../repositories/webhooks.ts';
import { rotateWebhookSecret } from '../../webhooks/register.ts';
import { createdWebhookJson, webhookJson } from '../../webhooks/webhook-json.ts';
import { apiKeyOf, authorize } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import type { RouteTable } from '../route-table.ts';
import {
  createWebhookFromBody,
  currentSheetName,
  patchWebhookFromBody,
  requireNoBody,
} from '../webhook-requests.ts';

/**
 * A webhook belongs to the API key that registered it: through `/v1` only that key sees and manages it, and only
 * while it still reaches the spreadsheet. Another key on the same spreadsheet could otherwise re-point the URL
 * to itself and replay a delivery, capturing a signed notification meant for someone else. Webhooks registered
 * by the dashboard or the CLI have no key (apiKeyId null): no key sees them; the admin surface and the CLI
 * manage every webhook.
 */
export function keyOwns(key: ApiKeyRecord, w: WebhookRecord): boolean {
  const reaches = key.connections.length === 0 || key.connections.includes(w.spreadsheetId);
  return w.apiKeyId === key.id && reaches;
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
 * The webhook named in the path, if this key owns it (404 `not_found` otherwise, the same answer as for an id
 * that does not exist, so another key's webhooks are not revealed); `write` also needs scope read_write (403).
 */
export async function webhookOf(
  res: Response,
  deps: AppDeps,
  id: string,
  access: 'read' | 'write',
): Promise<WebhookRecord> {
  const key = apiKeyOf(res);
  const webhook = await deps.webhooks.get(id);
  if (!webhook || !keyOwns(key, webhook)) throw new AppError('not_found', `No webhook with id "${id}".`);
  if (access === 'write') requireWriteScope(key);
  return webhook;
}

/**
 * `/v1/webhooks`: register, list, read, change, pause/resume, delete and rotate the secret, each on the key's own
 * webhooks (keyOwns). Every change needs a read_write key.
 */
export function mountWebhookRoutes(routes: RouteTable, deps: AppDeps): void {
  const present = async (w: WebhookRecord) => webhookJson(w, await currentSheetName(deps, w));

  routes.post('/v1/webhooks', 'write', async (req, res) => {
    const key = apiKeyOf(res);
    requireWriteScope(key);
    const { record, secret } = await createWebhookFromBody(deps, req.body, {
      apiKeyId: key.id,
      authorize: (connection) => authorize(res, connection, 'write'),
    });
    res.setHeader('Location', `/v1/webhooks/${encodeURIComponent(record.id)}`);
    res.status(201).json(createdWebhookJson(record, secret));
  });

  routes.get('/v1/webhooks', 'read', async (_req, res) => {
    const key = apiKeyOf(res);
    const visible = (await deps.webhooks.list()).filter((w) => keyOwns(key, w));
    res.json({ data: await Promise.all(visible.map(present)) });
  });

  const idOf = (req: Request) => String(req.params.id);

  routes.get('/v1/webhooks/:id', 'read', async (req, res) => {
    res.json(await present(await webhookOf(res, deps, idOf(req), 'read')));
  });

  routes.patch('/v1/webhooks/:id', 'write', async (req, res) => {
    const webhook = await webhookOf(res, deps, idOf(req), 'write');
    const updated = await patchWebhookFromBody(deps, webhook, req.body);
    res.json(await present(updated));
  });

  routes.delete('/v1/webhooks/:id', 'write', async (req, res) => {
    const webhook = await webhookOf(res, deps, idOf(req), 'write');
    // Its deliveries and their attempts go with it (foreign keys cascade).
    if (!(await deps.webhooks.remove(webhook.id)))
      throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
    res.json({ deleted: true, webhook_id: webhook.id });
  });

  routes.post('/v1/webhooks/:id/rotate-secret', 'write', async (req, res) => {
    const webhook = await webhookOf(res, deps, idOf(req), 'write');
    requireNoBody(req.body, 'rotate-secret');
    const secret = await rotateWebhookSecret(deps.webhooks, webhook.id);
    if (secret === null) throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
    res.json({ webhook_id: webhook.id, secret });
  });
}
