import { AppError } from '../errors.ts';
import { deliveryDetailJson, fullAttemptJson } from './delivery-json.ts';
import type { AppDeps } from './deps.ts';
import type { RouteTable } from './route-table.ts';

/**
 * `/admin/webhooks/{id}/deliveries/{deliveryId}`: one delivery in full for the dashboard's "inspect request and
 * response": the response excerpt and detailed error of every attempt, with the address it went to, also for
 * loopback and private targets (which the `/v1` API shows only coarsely). Loopback and admin token only
 * (`requireAdmin`), like the rest of `/admin`.
 */
export function mountAdminDeliveryRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.get('/admin/webhooks/:id/deliveries/:deliveryId', 'admin', (req, res) => {
    const webhookId = String(req.params.id);
    const deliveryId = String(req.params.deliveryId);
    if (!deps.webhooks.get(webhookId)) throw new AppError('not_found', `No webhook with id "${webhookId}".`);
    const delivery = deps.deliveries.get(deliveryId);
    if (!delivery || delivery.webhookId !== webhookId) {
      throw new AppError('not_found', `No delivery with id "${deliveryId}" for this webhook.`);
    }
    res.json(deliveryDetailJson(delivery, deps.deliveries.attemptsOf(delivery.id), fullAttemptJson));
  });
}
