/**
 * A delivery queued in the outbox as the change recording queues one (due now, pending, no attempt yet), for
 * suites about the outbox and the delivery worker rather than about what a change notifies. The row is the same
 * in both databases' schemas.
 */
import { randomBytes } from 'node:crypto';
import type { SqliteDatabase } from '../../server/store/db.ts';
import type { Queryable } from '../../server/store-pg/pool.ts';

const INSERT = (p: (n: number) => string) =>
  `INSERT INTO deliveries (id, webhook_id, event, payload, state, attempts, next_attempt_at, created_at)
   VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, 'pending', 0, ${p(5)}, ${p(6)})`;

const newId = () => `dlv_${randomBytes(12).toString('base64url')}`;

/** Into a SQLite data dir's database; returns the delivery's id. */
export function queueDelivery(
  db: SqliteDatabase,
  webhookId: string,
  event: string,
  payload: string,
  nowMs: number,
): string {
  const id = newId();
  db.prepare(INSERT(() => '?')).run(id, webhookId, event, payload, nowMs, nowMs);
  return id;
}

/** Into a PostgreSQL database; returns the delivery's id. */
export async function queuePgDelivery(
  db: Queryable,
  webhookId: string,
  event: string,
  payload: string,
  nowMs: number,
): Promise<string> {
  const id = newId();
  await db.query(
    INSERT((n) => `$${n}`),
    [id, webhookId, event, payload, nowMs, nowMs],
  );
  return id;
}
