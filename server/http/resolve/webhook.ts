/**
 * The `webhook` a `/v1` route names by `:id`, and a `delivery` of it by `:deliveryId`. A key sees only the
 * webhooks it owns (auth.ts keyOwns): any other id is 404 `not_found`, the answer for one that does not exist,
 * so another key's webhooks are not revealed.
 */

import { AppError } from '../../errors.ts';
import type { DeliveryRecord } from '../../repositories/deliveries.ts';
import type { ApiKeyRecord } from '../../repositories/keys.ts';
import type { WebhookRecord } from '../../repositories/webhooks.ts';
import { keyOwns } from '../auth.ts';
import type { AppDeps } from '../deps.ts';
import type { RouteRequest } from '../route-table.ts';

export async function resolveWebhook(
  deps: Pick<AppDeps, 'webhooks'>,
  req: RouteRequest,
  key: ApiKeyRecord,
): Promise<WebhookRecord> {
  const id = String(req.params.id);
  const webhook = await deps.webhooks.get(id);
  if (!webhook || !keyOwns(key, webhook)) throw new AppError('not_found', `No webhook with id "${id}".`);
  return webhook;
}

export async function resolveDelivery(
  deps: Pick<AppDeps, 'deliveries'>,
  req: RouteRequest,
  webhook: WebhookRecord,
): Promise<DeliveryRecord> {
  const deliveryId = String(req.params.deliveryId);
  const delivery = await deps.deliveries.get(deliveryId);
  if (!delivery || delivery.webhookId !== webhook.id) {
    throw new AppError('not_found', `No delivery with id "${deliveryId}" for this webhook.`);
  }
  return delivery;
}
