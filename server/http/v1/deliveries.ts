import { AppError } from '../../errors.ts';
import type { DeliveryState } from '../../repositories/deliveries.ts';
import { parsePaging, singleQuery } from '../../rows/query-params.ts';
import { apiAttemptJson, deliveryDetailJson, deliveryJson } from '../../webhooks/delivery-json.ts';
import { setPagingHeaders } from '../paging.ts';
import type { RouteTable } from '../route-table.ts';
import { type ReplayDeps, replayFromRequest } from '../webhook-requests.ts';

export const DELIVERY_LOG_LIMITS = { defaultLimit: 50, maxLimit: 200 };
const STATES: readonly DeliveryState[] = ['pending', 'in_flight', 'succeeded', 'failed'];

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

/**
 * The webhook's delivery log: one delivery per notification, every attempt of it, and replay. Reading it needs a
 * read_write key too: it shows what receivers answered.
 */
export function mountDeliveryRoutes(routes: RouteTable, deps: ReplayDeps): void {
  const log = '/v1/webhooks/:id/deliveries';
  routes.get(log, { access: 'read_write', resource: 'webhook' }, async (req, res, { webhook }) => {
    const query = req.query as Record<string, unknown>;
    const state = parseState(query);
    const { limit, offset } = parsePaging(query, DELIVERY_LOG_LIMITS);
    const page = await deps.deliveries.page(webhook.id, { ...(state ? { state } : {}), limit, offset });
    setPagingHeaders(req, res, page.total, limit, offset);
    res.json({ data: page.data.map(deliveryJson), meta: { total: page.total, limit, offset } });
  });

  routes.get(`${log}/:deliveryId`, { access: 'read_write', resource: 'delivery' }, async (_req, res, ctx) => {
    const attempts = await deps.deliveries.attemptsOf(ctx.delivery.id);
    res.json(deliveryDetailJson(ctx.delivery, attempts, apiAttemptJson));
  });

  const replay = `${log}/:deliveryId/replay`;
  routes.post(replay, { access: 'read_write', resource: 'delivery' }, async (req, res, { delivery }) => {
    res.status(202).json(await replayFromRequest(deps, delivery, req.body));
  });
}
