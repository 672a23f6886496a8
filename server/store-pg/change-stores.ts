/**
 * Team mode's change stores, opened together on one pool (the PostgreSQL store composes them with the other
 * repositories): the change log, the change recording and the baselines it writes, the outbox and its log.
 * `listener` is the instance's one LISTEN connection: the outbox counts what other instances queue through it.
 */
import { PgBaselines } from './baselines.ts';
import { PgChangeLog } from './change-log.ts';
import { PgChangeRecording } from './change-recording.ts';
import { PgDeliveries } from './deliveries.ts';
import { PgDeliveryLog } from './delivery-log.ts';
import type { PgListener } from './listener.ts';
import type { Pool } from './pool.ts';

export interface PgChangeStores {
  changeLog: PgChangeLog;
  changeRecording: PgChangeRecording;
  baselines: PgBaselines;
  deliveries: PgDeliveries;
  deliveryLog: PgDeliveryLog;
}

export function openChangeStores(pool: Pool, listener: PgListener): PgChangeStores {
  const changeLog = new PgChangeLog(pool);
  const baselines = new PgBaselines(pool);
  return {
    changeLog,
    changeRecording: new PgChangeRecording(pool, baselines, changeLog),
    baselines,
    deliveries: new PgDeliveries(pool, listener),
    deliveryLog: new PgDeliveryLog(pool),
  };
}
