import { AppError } from '../errors.ts';
import type { Deliveries, DeliveryRecord } from '../repositories/deliveries.ts';

/**
 * A manual replay, as the API, the dashboard and the CLI ask for it: a new attempt now (see
 * Deliveries.requestReplay), refused while an attempt is in flight. Only marks the delivery due in SQLite; the
 * running service's delivery worker sends it (it notices work queued by another process within a second).
 * Returns the delivery as it is now.
 */
export async function replayDelivery(
  deliveries: Deliveries,
  delivery: DeliveryRecord,
  nowMs: number,
): Promise<DeliveryRecord> {
  if (delivery.state === 'in_flight' || !(await deliveries.requestReplay(delivery.id, nowMs))) {
    throw new AppError(
      'conflict',
      `Delivery ${delivery.id} is being sent right now; replay it once that attempt ends.`,
      {
        state: 'in_flight',
      },
    );
  }
  return (await deliveries.get(delivery.id)) ?? delivery;
}
