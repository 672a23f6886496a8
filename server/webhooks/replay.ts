import { AppError } from '../errors.ts';
import type { DeliveryRecord, DeliveryStore } from '../store/deliveries.ts';

/**
 * A manual replay, as the API, the dashboard and the CLI ask for it: a new attempt now (see
 * DeliveryStore.requestReplay), refused while an attempt is in flight. Only marks the delivery due in SQLite; the
 * running service's delivery worker sends it (it notices work queued by another process within a second).
 * Returns the delivery as it is now.
 */
export function replayDelivery(
  deliveries: DeliveryStore,
  delivery: DeliveryRecord,
  nowMs: number,
): DeliveryRecord {
  if (delivery.state === 'in_flight' || !deliveries.requestReplay(delivery.id, nowMs)) {
    throw new AppError(
      'conflict',
      `Delivery ${delivery.id} is being sent right now; replay it once that attempt ends.`,
      {
        state: 'in_flight',
      },
    );
  }
  return deliveries.get(delivery.id) ?? delivery;
}
