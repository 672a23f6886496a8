/**
 * Team mode's change stores, opened together on one pool (the PostgreSQL store composes them with the other
 * repositories): the change log, the change recording and the baselines it writes, the outbox and its log.
 * `listener` is the instance's one LISTEN connection: the outbox counts what other instances queue through it.
 */

import { ChangeLogRepository } from '../repositories/rules/change-log.ts';
import { ChangeRecordingRepository } from '../repositories/rules/change-recording.ts';
import { DeliveryLogRepository } from '../repositories/rules/delivery-log.ts';
import { OutboxRepository } from '../repositories/rules/outbox.ts';
import { PgBaselines } from './baselines.ts';
import { PgChangeLogStatements } from './change-log.ts';
import { DeliveriesHeard, PgOutboxStatements, pgOutboxStatements } from './deliveries.ts';
import { PgDeliveryLogStatements } from './delivery-log.ts';
import type { PgListener } from './listener.ts';
import type { Pool } from './pool.ts';
import { pgRecordingStatements } from './recording.ts';
import { pgTransactional } from './transactional.ts';

export interface PgChangeStores {
  changeLog: ChangeLogRepository;
  changeRecording: ChangeRecordingRepository;
  baselines: PgBaselines;
  deliveries: OutboxRepository;
  deliveryLog: DeliveryLogRepository;
}

export function openChangeStores(pool: Pool, listener: PgListener): PgChangeStores {
  const baselines = new PgBaselines(pool);
  const heard = new DeliveriesHeard(listener);
  return {
    changeLog: new ChangeLogRepository(new PgChangeLogStatements(pool)),
    changeRecording: new ChangeRecordingRepository(pgTransactional(pool, pgRecordingStatements), baselines),
    baselines,
    deliveries: new OutboxRepository(pgTransactional(pool, pgOutboxStatements(heard))),
    deliveryLog: new DeliveryLogRepository(
      new PgDeliveryLogStatements(pool, new PgOutboxStatements(pool, heard)),
    ),
  };
}
