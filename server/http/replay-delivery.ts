import { AppError } from '../errors.ts';
import type { DeliveryRecord } from '../store/deliveries.ts';
import type { AppDeps } from './deps.ts';
import { requireNoBody } from './webhook-changes.ts';

/**
 * A manual replay, as `/v1` and the dashboard ask for it: a new attempt now (see DeliveryStore.requestReplay),
 * refused while an attempt is in flight. Returns the answer both routes send with 202.
 */
export function replayDelivery(deps: AppDeps, delivery: DeliveryRecord, body: unknown) {
  requireNoBody(body, 'replay');
  if (delivery.state === 'in_flight' || !deps.deliveries.requestReplay(delivery.id, deps.now())) {
    throw new AppError(
      'conflict',
      'This delivery is being sent right now; replay it once that attempt ends.',
      {
        state: 'in_flight',
      },
    );
  }
  deps.wakeDeliveries?.();
  return { delivery_id: delivery.id, state: 'pending' as const };
}
