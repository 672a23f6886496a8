/**
 * The outbox's tables in PostgreSQL (migration 2): the statements of repositories/rules/outbox.ts. Workers on
 * every instance claim with `FOR UPDATE SKIP LOCKED`, so each due delivery is claimed by one of them at a time,
 * and they hear of new work through NOTIFY sheetport_deliveries.
 */
import type { NextState } from '../repositories/deliveries.ts';
import type {
  AttemptRow,
  DeliveryRow,
  LogCondition,
  OutboxStatements,
} from '../repositories/rules/outbox.ts';
import { DELIVERY_COLUMNS, DELIVERY_COLUMNS_D } from '../repositories/rules/outbox.ts';
import { CHANNELS } from './channels.ts';
import type { PgListener } from './listener.ts';
import type { Queryable } from './pool.ts';
import type { Bind } from './transactional.ts';

/** How many times this instance heard the deliveries channel (and reconnects, after which anything may have
 * changed): the outbox's external version. Ours are heard too; a needless look is harmless. */
export class DeliveriesHeard {
  count = 0;

  constructor(listener: PgListener) {
    listener.on(CHANNELS.deliveries, () => {
      this.count++;
    });
  }
}

export function pgOutboxStatements(heard: DeliveriesHeard): Bind<OutboxStatements> {
  return (db) => new PgOutboxStatements(db, heard);
}

export class PgOutboxStatements implements OutboxStatements {
  readonly #db: Queryable;
  readonly #heard: DeliveriesHeard;

  constructor(db: Queryable, heard: DeliveriesHeard) {
    this.#db = db;
    this.#heard = heard;
  }

  duePending(nowMs: number, limit: number): Promise<DeliveryRow[]> {
    return this.#due("d.state = 'pending' AND d.next_attempt_at <= $1", 'd.next_attempt_at', nowMs, limit);
  }

  claimExpired(nowMs: number, limit: number): Promise<DeliveryRow[]> {
    return this.#due("d.state = 'in_flight' AND d.lease_until <= $1", 'd.lease_until', nowMs, limit);
  }

  /** Rows another instance is claiming are skipped, and one it claimed meanwhile no longer matches once locked. */
  async #due(where: string, order: string, nowMs: number, limit: number): Promise<DeliveryRow[]> {
    const { rows } = await this.#db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS_D} FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE ${where} AND w.status = 'active'
       ORDER BY ${order} LIMIT $2 FOR UPDATE OF d SKIP LOCKED`,
      [nowMs, limit],
    );
    return rows;
  }

  async claim(ids: readonly string[], claimedUntil: number): Promise<void> {
    await this.#db.query(
      "UPDATE deliveries SET state = 'in_flight', lease_until = $1 WHERE id = ANY($2::text[])",
      [claimedUntil, ids],
    );
  }

  async nextPendingAt(): Promise<number | null> {
    const { rows } = await this.#db.query<{ at: number }>(
      `SELECT d.next_attempt_at AS at FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
       WHERE d.state = 'pending' AND w.status = 'active' ORDER BY d.next_attempt_at LIMIT 1`,
    );
    return rows[0]?.at ?? null;
  }

  async nextClaimEnd(): Promise<number | null> {
    const { rows } = await this.#db.query<{ at: number | null }>(
      "SELECT MIN(lease_until) AS at FROM deliveries WHERE state = 'in_flight'",
    );
    return rows[0]?.at ?? null;
  }

  async addAttempt(deliveryId: string, a: AttemptRow): Promise<void> {
    await this.#db.query(
      `INSERT INTO delivery_attempts (delivery_id, attempt, trigger, started_at, duration_ms, status, error,
         response_excerpt, target_address, target_kind, request_headers)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        deliveryId,
        a.attempt,
        a.trigger,
        a.started_at,
        a.duration_ms,
        a.status,
        a.error,
        a.response_excerpt,
        a.target_address,
        a.target_kind,
        a.request_headers,
      ],
    );
  }

  async settle(deliveryId: string, attempts: number, next: NextState): Promise<void> {
    await this.#db.query(
      `UPDATE deliveries SET state = $2, attempts = $3, next_attempt_at = $4, lease_until = NULL,
         replay = false, completed_at = $5 WHERE id = $1`,
      [deliveryId, next.state, attempts, next.nextAttemptAt, next.completedAt],
    );
  }

  async byId(id: string, lock = false): Promise<DeliveryRow | undefined> {
    const { rows } = await this.#db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0];
  }

  async attemptsOf(deliveryId: string): Promise<AttemptRow[]> {
    const { rows } = await this.#db.query<AttemptRow>(
      `SELECT attempt, trigger, started_at, duration_ms, status, error, response_excerpt, target_address,
              target_kind, request_headers
       FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`,
      [deliveryId],
    );
    return rows;
  }

  async page(where: readonly LogCondition[], limit: number, offset: number): Promise<DeliveryRow[]> {
    const n = where.length;
    const { rows } = await this.#db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries ${clause(where)}
       ORDER BY created_at DESC, seq DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...where.map((c) => c.value), limit, offset],
    );
    return rows;
  }

  async count(where: readonly LogCondition[]): Promise<number> {
    const { rows } = await this.#db.query<{ n: number }>(
      `SELECT COUNT(*) AS n FROM deliveries ${clause(where)}`,
      where.map((c) => c.value),
    );
    return rows[0]!.n;
  }

  async replayAt(id: string, nowMs: number, replay: boolean): Promise<void> {
    await this.#db.query(
      `UPDATE deliveries SET state = 'pending', next_attempt_at = $1, completed_at = NULL, replay = $2
       WHERE id = $3`,
      [nowMs, replay, id],
    );
  }

  /** Every instance's worker looks (NOTIFY, delivered as this commits). */
  async deliveriesChanged(): Promise<void> {
    await this.#db.query('SELECT pg_notify($1, $2)', [CHANNELS.deliveries, '']);
  }

  externalVersion(): number {
    return this.#heard.count;
  }

  async purgeFinished(beforeMs: number): Promise<number> {
    const { rowCount } = await this.#db.query(
      "DELETE FROM deliveries WHERE state IN ('succeeded', 'failed') AND completed_at < $1",
      [beforeMs],
    );
    return rowCount ?? 0;
  }
}

function clause(where: readonly LogCondition[]): string {
  return where.length ? `WHERE ${where.map((c, i) => `${c.column} = $${i + 1}`).join(' AND ')}` : '';
}
