import { AppError } from '../../errors.ts';
import type { WebhookRecord } from '../../repositories/webhooks.ts';
import { rotateWebhookSecret } from '../../webhooks/register.ts';
import { createdWebhookJson, webhookJson } from '../../webhooks/webhook-json.ts';
import { keyOwns } from '../auth.ts';
import type { RouteTable } from '../route-table.ts';
import {
  type CreateWebhookDeps,
  createWebhookFromBody,
  currentSheetName,
  type PatchWebhookDeps,
  patchWebhookFromBody,
  requireNoBody,
  type SheetNameDeps,
} from '../webhook-requests.ts';

/**
 * `/v1/webhooks`: register, list, read, change, pause/resume, delete and rotate the secret, each on the key's own
 * webhooks (auth.ts keyOwns; the route pipeline resolves `:id` to one of them). Every change needs a read_write
 * key.
 */
export function mountWebhookRoutes(
  routes: RouteTable,
  deps: CreateWebhookDeps & PatchWebhookDeps & SheetNameDeps,
): void {
  const present = async (w: WebhookRecord) => webhookJson(w, await currentSheetName(deps, w));

  // The spreadsheet is named in the body: the key's reach is checked once it is known.
  routes.post(
    '/v1/webhooks',
    { access: 'read_write', resource: 'none' },
    async (req, res, { key, reach }) => {
      const { record, secret } = await createWebhookFromBody(deps, req.body, {
        apiKeyId: key.id,
        authorize: reach,
      });
      res.setHeader('Location', `/v1/webhooks/${encodeURIComponent(record.id)}`);
      res.status(201).json(createdWebhookJson(record, secret));
    },
  );

  routes.get('/v1/webhooks', { access: 'read', resource: 'none' }, async (_req, res, { key }) => {
    const visible = (await deps.webhooks.list()).filter((w) => keyOwns(key, w));
    res.json({ data: await Promise.all(visible.map(present)) });
  });

  routes.get('/v1/webhooks/:id', { access: 'read', resource: 'webhook' }, async (_req, res, { webhook }) => {
    res.json(await present(webhook));
  });

  routes.patch(
    '/v1/webhooks/:id',
    { access: 'read_write', resource: 'webhook' },
    async (req, res, { webhook }) => {
      const updated = await patchWebhookFromBody(deps, webhook, req.body);
      res.json(await present(updated));
    },
  );

  routes.delete(
    '/v1/webhooks/:id',
    { access: 'read_write', resource: 'webhook' },
    async (_req, res, { webhook }) => {
      // Its deliveries and their attempts go with it (foreign keys cascade).
      if (!(await deps.webhooks.remove(webhook.id)))
        throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
      res.json({ deleted: true, webhook_id: webhook.id });
    },
  );

  const rotate = '/v1/webhooks/:id/rotate-secret';
  routes.post(rotate, { access: 'read_write', resource: 'webhook' }, async (req, res, { webhook }) => {
    requireNoBody(req.body, 'rotate-secret');
    const secret = await rotateWebhookSecret(deps.webhooks, webhook.id);
    if (secret === null) throw new AppError('not_found', `No webhook with id "${webhook.id}".`);
    res.json({ webhook_id: webhook.id, secret });
  });
}
