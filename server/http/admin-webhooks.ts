/**
 * `/admin/webhooks`: the dashboard's webhooks, every one whatever key registered it, each with its health (its
 * newest attempt and its failures in a row, from the delivery log). Registering and changing
 * go through the same steps and body rules as `/v1/webhooks` (webhook-requests.ts); the answers have the same
 * shapes. Access `admin` (loopback and the admin token).
 */
import type { Request } from 'express';
import { AppError } from '../errors.ts';
import type { WebhookRecord } from '../repositories/webhooks.ts';
import { rotateWebhookSecret } from '../webhooks/register.ts';
import { createdWebhookJson, webhookHealthJson, webhookJson } from '../webhooks/webhook-json.ts';
import type { AppDeps } from './deps.ts';
import type { RouteTable } from './route-table.ts';
import {
  type CreateWebhookDeps,
  createWebhookFromBody,
  currentSheetName,
  type PatchWebhookDeps,
  patchWebhookFromBody,
  requireNoBody,
  type SheetNameDeps,
} from './webhook-requests.ts';

export function mountAdminWebhookRoutes(
  routes: RouteTable,
  deps: CreateWebhookDeps & PatchWebhookDeps & SheetNameDeps & Pick<AppDeps, 'deliveryLog'>,
): void {
  // The /v1 shape plus the receiver's health, which only the owner's dashboard shows.
  const present = async (w: WebhookRecord) => ({
    ...webhookJson(w, await currentSheetName(deps, w)),
    health: webhookHealthJson(await deps.deliveryLog.health(w.id)),
  });
  const webhookOf = async (req: Request): Promise<WebhookRecord> => {
    const id = String(req.params.id);
    const webhook = await deps.webhooks.get(id);
    if (!webhook) throw new AppError('not_found', `No webhook with id "${id}".`);
    return webhook;
  };

  routes.get('/admin/webhooks', 'admin', async (_req, res) => {
    res.json({ data: await Promise.all((await deps.webhooks.list()).map(present)) });
  });

  // Registered by the owner, not by a key: no key is recorded with it, and every spreadsheet is in reach.
  routes.post('/admin/webhooks', 'admin', async (req, res) => {
    const { record, secret } = await createWebhookFromBody(deps, req.body, {
      apiKeyId: null,
      authorize: () => {},
    });
    res.status(201).json(createdWebhookJson(record, secret));
  });

  routes.patch('/admin/webhooks/:id', 'admin', async (req, res) => {
    res.json(await present(await patchWebhookFromBody(deps, await webhookOf(req), req.body)));
  });

  routes.delete('/admin/webhooks/:id', 'admin', async (req, res) => {
    const webhook = await webhookOf(req);
    // Its deliveries and their attempts go with it (foreign keys cascade).
    if (!(await deps.webhooks.remove(webhook.id)))
      throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
    res.json({ deleted: true, webhook_id: webhook.id });
  });

  routes.post('/admin/webhooks/:id/rotate-secret', 'admin', async (req, res) => {
    const webhook = await webhookOf(req);
    requireNoBody(req.body, 'rotate-secret');
    const secret = await rotateWebhookSecret(deps.webhooks, webhook.id);
    if (secret === null) throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
    res.json({ webhook_id: webhook.id, secret });
  });
}
