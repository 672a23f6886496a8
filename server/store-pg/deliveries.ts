/**
 * The outbox in PostgreSQL (repositories/deliveries.ts), with store/deliveries.ts's rules: a delivery is
 * `pending` (due at next_attempt_at), `in_flight` (claimed under a lease; an expired lease makes it claimable
 * again, so it goes out again with the same id), `succeeded` or `failed`. Workers on every instance claim with
 * `FOR UPDATE SKIP LOCKED`, so each due delivery is claimed by one of them at a time.
 */
import { randomBytes } from 'node:crypto';
import type {
  AttemptOutcome,
  AttemptRecord,
  Deliveries,
  DeliveryPage,
  DeliveryRecord,
  DeliveryState,
  NextState,
} from '../repositories/deliveries.ts';
import { DELIVERY_COLUMNS, type DeliveryRow, toDeliveryRecord } from '../store/deliveries.ts';
import { CHANNELS } from './channels.ts';
import type { PgListener } from './listener.ts';
import { type Pool, type Queryable, tx } from './pool.ts';

/** A `deliveries` row as node-postgres returns it: SQLite's row (store/deliveries.ts), `replay` a boolean. */
export type PgDeliveryRow = Omit<DeliveryRow, 'replay'> & { replay: boolean };

/** The same columns as SQLite's table. */
export const PG_DELIVERY_COLUMNS = DELIVERY_COLUMNS;
const PREFIXED = PG_DELIVERY_COLUMNS.split(', ')
  .map((c) => `d.${c}`)
  .join(', ');

/** One mapping to a DeliveryRecord for both stores: SQLite's, given `replay` as SQLite stores it. */
export function pgDeliveryRecord(row: PgDeliveryRow): DeliveryRecord {
  return toDeliveryRecord({ ...row, replay: row.replay ? 1 : 0 });
}

/** Queue a notification, due now (in the recording's transaction); returns its id. */
export async function enqueueDelivery(
  db: Queryable,
  webhookId: string,
  event: string,
  payload: string,
  nowMs: number,
): Promise<string> {
  const id = `dlv_${randomBytes(12).toString('base64url')}`;
  await db.query(
    `INSERT INTO deliveries (id, webhook_id, event, payload, state, attempts, next_attempt_at, replay, created_at)
     VALUES ($1, $2, $3, $4, 'pending', 0, $5, false, $5)`,
    [id, webhookId, event, payload, nowMs],
  );
  return id;
}

interface AttemptRow {
  attempt: number;
  trigger: AttemptRecord['trigger'];
  started_at: number;
  duration_ms: number;
  status: number | null;
  error: string | null;
  response_excerpt: string | null;
  target_address: string | null;
  target_kind: string | null;
  request_headers: string | null;
}

export class PgDeliveries implements Deliveries {
  readonly #pool: Pool;
  /** Bumped by every NOTIFY on the deliveries channel (ours included: a needless look is harmless). */
  #heard = 0;

  constructor(pool: Pool, listener: PgListener) {
    this.#pool = pool;
    listener.on(CHANNELS.deliveries, () => {
      this.#heard++;
    });
  }

  /** Outside the interface, as SQLite's: tests and the recording queue through it. */
  enqueue(webhookId: string, event: string, payload: string, nowMs: number): Promise<string> {
    return enqueueDelivery(this.#pool, webhookId, event, payload, nowMs);
  }

  async claimDue(
    nowMs: number,
    limit: number,
    leaseMs: number,
    accept: (d: DeliveryRecord) => boolean = () => true,
  ): Promise<DeliveryRecord[]> {
    return tx(this.#pool, async (client) => {
      // Expired leases first, then pending ones, as SQLite's; rows another instance is claiming are skipped,
      // and one it claimed meanwhile no longer matches when its lock is taken.
      const due = (where: string, order: string) =>
        client.query<PgDeliveryRow>(
          `SELECT ${PREFIXED} FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
           WHERE ${where} AND w.status = 'active'
           ORDER BY ${order} LIMIT $2 FOR UPDATE OF d SKIP LOCKED`,
          [nowMs, limit * 4],
        );
      const expired = await due("d.state = 'in_flight' AND d.lease_until <= $1", 'd.lease_until');
      const pending = await due("d.state = 'pending' AND d.next_attempt_at <= $1", 'd.next_attempt_at');
      const claimed: DeliveryRecord[] = [];
      for (const row of [...expired.rows, ...pending.rows]) {
        if (claimed.length >= limit) break;
        const d = pgDeliveryRecord(row);
        if (!accept(d)) continue;
        claimed.push({ ...d, state: 'in_flight' });
      }
      if (claimed.length > 0) {
        await client.query(
          "UPDATE deliveries SET state = 'in_flight', lease_until = $1 WHERE id = ANY($2::text[])",
          [nowMs + leaseMs, claimed.map((d) => d.id)],
        );
      }
      return claimed;
    });
  }

  async nextDueAt(): Promise<number | null> {
    const { rows } = await this.#pool.query<{ pending: number | null; lease: number | null }>(
      `SELECT (SELECT d.next_attempt_at FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
               WHERE d.state = 'pending' AND w.status = 'active' ORDER BY d.next_attempt_at LIMIT 1) AS pending,
              (SELECT MIN(lease_until) FROM deliveries WHERE state = 'in_flight') AS lease`,
    );
    const { pending, lease } = rows[0]!;
    if (pending === null) return lease;
    return lease === null ? pending : Math.min(pending, lease);
  }

  async settle(delivery: DeliveryRecord, attempt: AttemptOutcome, next: NextState): Promise<void> {
    const number = delivery.attempts + 1;
    await tx(this.#pool, async (client) => {
      await client.query(
        `INSERT INTO delivery_attempts (delivery_id, attempt, trigger, started_at, duration_ms, status, error,
           response_excerpt, target_address, target_kind, request_headers)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          delivery.id,
          number,
          attempt.trigger,
          attempt.startedAt,
          attempt.durationMs,
          attempt.status,
          attempt.error,
          attempt.responseExcerpt,
          attempt.targetAddress ?? null,
          attempt.targetKind ?? null,
          attempt.requestHeaders ? JSON.stringify(attempt.requestHeaders) : null,
        ],
      );
      await client.query(
        `UPDATE deliveries SET state = $2, attempts = $3, next_attempt_at = $4, lease_until = NULL,
           replay = false, completed_at = $5 WHERE id = $1`,
        [delivery.id, next.state, number, next.nextAttemptAt, next.completedAt],
      );
    });
  }

  async get(id: string): Promise<DeliveryRecord | null> {
    const { rows } = await this.#pool.query<PgDeliveryRow>(
      `SELECT ${PG_DELIVERY_COLUMNS} FROM deliveries WHERE id = $1`,
      [id],
    );
    return rows[0] ? pgDeliveryRecord(rows[0]) : null;
  }

  async attemptsOf(id: string): Promise<AttemptRecord[]> {
    const { rows } = await this.#pool.query<AttemptRow>(
      `SELECT attempt, trigger, started_at, duration_ms, status, error, response_excerpt, target_address,
              target_kind, request_headers
       FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt`,
      [id],
    );
    return rows.map((a) => ({
      attempt: a.attempt,
      trigger: a.trigger,
      startedAt: a.started_at,
      durationMs: a.duration_ms,
      status: a.status,
      error: a.error,
      responseExcerpt: a.response_excerpt,
      targetAddress: a.target_address,
      targetKind: a.target_kind,
      requestHeaders:
        a.request_headers === null ? null : (JSON.parse(a.request_headers) as Record<string, string>),
    }));
  }

  async page(
    webhookId: string,
    options: { state?: DeliveryState; limit: number; offset: number },
  ): Promise<DeliveryPage> {
    const byState = options.state !== undefined;
    const where = byState ? 'webhook_id = $1 AND state = $2' : 'webhook_id = $1';
    const args: (string | number)[] = byState ? [webhookId, options.state!] : [webhookId];
    const [page, count] = await Promise.all([
      this.#pool.query<PgDeliveryRow>(
        `SELECT ${PG_DELIVERY_COLUMNS} FROM deliveries WHERE ${where}
         ORDER BY created_at DESC, seq DESC LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
        [...args, options.limit, options.offset],
      ),
      this.#pool.query<{ n: number }>(`SELECT COUNT(*) AS n FROM deliveries WHERE ${where}`, args),
    ]);
    return { total: count.rows[0]!.n, data: page.rows.map(pgDeliveryRecord) };
  }

  /**
   * A manual replay, as SQLite's: one extra attempt of a finished delivery, or the retry of one awaiting it
   * brought forward. Every instance's worker hears of it (NOTIFY, sent when it commits).
   */
  async requestReplay(id: string, nowMs: number): Promise<boolean> {
    return tx(this.#pool, async (client) => {
      const { rowCount } = await client.query(
        `UPDATE deliveries SET state = 'pending', next_attempt_at = $1, completed_at = NULL,
           replay = (state IN ('failed', 'succeeded'))
         WHERE id = $2 AND state <> 'in_flight'`,
        [nowMs, id],
      );
      if (!rowCount) return false;
      await client.query('SELECT pg_notify($1, $2)', [CHANNELS.deliveries, '']);
      return true;
    });
  }

  /** How many times the deliveries channel was heard (and reconnects, after which anything may have changed). */
  async externalVersion(): Promise<number> {
    return this.#heard;
  }

  async purgeFinished(beforeMs: number): Promise<number> {
    const { rowCount } = await this.#pool.query(
      "DELETE FROM deliveries WHERE state IN ('succeeded', 'failed') AND completed_at < $1",
      [beforeMs],
    );
    return rowCount ?? 0;
  }
}
