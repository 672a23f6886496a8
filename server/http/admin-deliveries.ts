import type { Request } from 'express';
import { AppError } from '../errors.ts';
import { isWebhookEvent, WEBHOOK_EVENTS } from '../repositories/webhooks.ts';
import { parsePaging, singleQuery } from '../rows/query-params.ts';
import { deliveryDetailJson, deliveryLogEntryJson, fullAttemptJson } from '../webhooks/delivery-json.ts';
import type { AppDeps } from './deps.ts';
import { setPagingHeaders } from './paging.ts';
import type { RouteTable } from './route-table.ts';
import { DELIVERY_LOG_LIMITS, parseState } from './v1/deliveries.ts';
import { type ReplayDeps, replayFromRequest } from './webhook-requests.ts';

/**
 * The dashboard's delivery log: every webhook's deliveries newest first (filter by webhook, state, event), one
 * delivery in full (the response excerpt and detailed error of every attempt, with the address it went to, also
 * for loopback and private targets, which the `/v1` API shows only coarsely), and replay. Loopback and admin
 * token only (`requireAdmin`), like the rest of `/admin`.
 */
export function mountAdminDeliveryRoutes(
  routes: RouteTable,
  deps: ReplayDeps & Pick<AppDeps, 'webhooks' | 'deliveryLog'>,
): void {
  const deliveryOf = async (req: Request) => {
    const webhookId = String(req.params.id);
    const deliveryId = String(req.params.deliveryId);
    if (!(await deps.webhooks.get(webhookId)))
      throw new AppError('not_found', `No webhook with id "${webhookId}".`);
    const delivery = await deps.deliveries.get(deliveryId);
    if (!delivery || delivery.webhookId !== webhookId) {
      throw new AppError('not_found', `No delivery with id "${deliveryId}" for this webhook.`);
    }
    return delivery;
  };

  routes.get('/admin/deliveries', 'admin', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const state = parseState(query);
    const webhookId = singleQuery(query, 'webhook_id') || undefined;
    const event = singleQuery(query, 'event') || undefined;
    if (event !== undefined && !isWebhookEvent(event)) {
      throw new AppError(
        'invalid_parameter',
        `Parameter "event" must be one of ${WEBHOOK_EVENTS.join(', ')}.`,
        {
          parameter: 'event',
        },
      );
    }
    const { limit, offset } = parsePaging(query, DELIVERY_LOG_LIMITS);
    const page = await deps.deliveryLog.page({
      ...(webhookId ? { webhookId } : {}),
      ...(state ? { state } : {}),
      ...(event ? { event } : {}),
      limit,
      offset,
    });
    setPagingHeaders(req, res, page.total, limit, offset);
    res.json({
      data: page.data.map(deliveryLogEntryJson),
      meta: { total: page.total, limit, offset },
    });
  });

  routes.get('/admin/webhooks/:id/deliveries/:deliveryId', 'admin', async (req, res) => {
    const delivery = await deliveryOf(req);
    res.json(deliveryDetailJson(delivery, await deps.deliveries.attemptsOf(delivery.id), fullAttemptJson));
  });

  routes.post('/admin/webhooks/:id/deliveries/:deliveryId/replay', 'admin', async (req, res) => {
    res.status(202).json(await replayFromRequest(deps, await deliveryOf(req), req.body));
  });
}
