import type { Request, Response } from 'express';
import { AppError } from '../../errors.ts';
import type { DeliveryRecord, DeliveryState } from '../../repositories/deliveries.ts';
import type { WebhookRecord } from '../../repositories/webhooks.ts';
import { parsePaging, singleQuery } from '../../rows/query-params.ts';
import { apiAttemptJson, deliveryDetailJson, deliveryJson } from '../../webhooks/delivery-json.ts';
import type { AppDeps } from '../deps.ts';
import { setPagingHeaders } from '../paging.ts';
import type { RouteTable } from '../route-table.ts';
import { replayFromRequest } from '../webhook-requests.ts';
import { webhookOf } from './webhooks.ts';

export const DELIVERY_LOG_LIMITS = { defaultLimit: 50, maxLimit: 200 };
const STATES: readonly DeliveryState[] = ['pending', 'in_flight', 'succeeded', 'failed'];

/** Delivery logs need a read_write key: they show what receivers answered. */
export function parseState(query: Record<string, unknown>): DeliveryState | undefined {
  const raw = singleQuery(query, 'state');
  if (raw === undefined || raw === '') return undefined;
  if (!(STATES as readonly string[]).includes(raw)) {
    throw new AppError('invalid_parameter', `Parameter "state" must be one of ${STATES.join(', ')}.`, {
      parameter: 'state',
    });
  }
  return raw as DeliveryState;
}

/** The webhook's delivery log: one delivery per notification, every attempt of it, and replay. */
export function mountDeliveryRoutes(routes: RouteTable, deps: AppDeps): void {
  const deliveryOf = async (
    req: Request,
    res: Response,
    access: 'read' | 'write',
  ): Promise<{ webhook: WebhookRecord; delivery: DeliveryRecord }> => {
    const webhook = await webhookOf(res, deps, String(req.params.id), access);
    const deliveryId = String(req.params.deliveryId);
    const delivery = await deps.deliveries.get(deliveryId);
    if (!delivery || delivery.webhookId !== webhook.id) {
      throw new AppError('not_found', `No delivery with id "${deliveryId}" for this webhook.`);
    }
    return { webhook, delivery };
  };

  routes.get('/v1/webhooks/:id/deliveries', 'write', async (req, res) => {
    const webhook = await webhookOf(res, deps, String(req.params.id), 'read');
    const query = req.query as Record<string, unknown>;
    const state = parseState(query);
    const { limit, offset } = parsePaging(query, DELIVERY_LOG_LIMITS);
    const page = await deps.deliveries.page(webhook.id, { ...(state ? { state } : {}), limit, offset });
    setPagingHeaders(req, res, page.total, limit, offset);
    res.json({ data: page.data.map(deliveryJson), meta: { total: page.total, limit, offset } });
  });

  routes.get('/v1/webhooks/:id/deliveries/:deliveryId', 'write', async (req, res) => {
    const { delivery } = await deliveryOf(req, res, 'read');
    res.json(deliveryDetailJson(delivery, await deps.deliveries.attemptsOf(delivery.id), apiAttemptJson));
  });

  routes.post('/v1/webhooks/:id/deliveries/:deliveryId/replay', 'write', async (req, res) => {
    const { delivery } = await deliveryOf(req, res, 'write');
    res.status(202).json(await replayFromRequest(deps, delivery, req.body));
  });
}
