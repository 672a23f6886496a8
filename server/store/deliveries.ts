import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type {
  AttemptOutcome,
  AttemptRecord,
  Deliveries,
  DeliveryPage,
  DeliveryRecord,
  DeliveryState,
  NextState,
} from '../repositories/deliveries.ts';

/** A `deliveries` row as SQLite returns it; toDeliveryRecord is the one mapping to a DeliveryRecord. */
export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event: string;
  payload: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: number | null;
  replay: number;
  created_at: number;
  completed_at: number | null;
}

/** The columns a DeliveryRow holds, for a SELECT. */
export const DELIVERY_COLUMNS =
  'id, webhook_id, event, payload, state, attempts, next_attempt_at, replay, created_at, completed_at';
const PREFIXED = DELIVERY_COLUMNS.split(', ')
  .map((c) => `d.${c}`)
  .join(', ');

export function toDeliveryRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    event: row.event,
    payload: row.payload,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    replay: row.replay === 1,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

/**
 * The outbox, the SQLite implementation of Deliveries (repositories/deliveries.ts). A delivery is `pending` (due at next_attempt_at), `in_flight` (claimed by the worker under a
 * lease; an expired lease after a crash makes it claimable again, so it goes out again with the same id),
 * `succeeded` or `failed`. Times are epoch milliseconds.
 */
export class DeliveryStore implements Deliveries {
  readonly #db: Database.Database;
  readonly #stmts;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#stmts = {
      insert: db.prepare(
        `INSERT INTO deliveries (id, webhook_id, event, payload, state, attempts, next_attempt_at, replay, created_at)
         VALUES (?, ?, ?, ?, 'pending', 0, ?, 0, ?)`,
      ),
      // Two index-driven halves (deliveries_due serves both the filter and the order), so a claim reads only
      // the rows it returns however long the queue is; an OR across both states would scan and sort it all.
      duePending: db.prepare<[number, number], DeliveryRow>(
        `SELECT ${PREFIXED} FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND w.status = 'active'
         ORDER BY d.next_attempt_at LIMIT ?`,
      ),
      dueExpired: db.prepare<[number, number], DeliveryRow>(
        `SELECT ${PREFIXED} FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.state = 'in_flight' AND d.lease_until <= ? AND w.status = 'active'
         ORDER BY d.lease_until LIMIT ?`,
      ),
      claim: db.prepare<[number, string]>(
        "UPDATE deliveries SET state = 'in_flight', lease_until = ? WHERE id = ? AND state IN ('pending', 'in_flight')",
      ),
      nextPending: db
        .prepare<[], number>(
          `SELECT d.next_attempt_at FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
           WHERE d.state = 'pending' AND w.status = 'active' ORDER BY d.next_attempt_at LIMIT 1`,
        )
        .pluck(),
      nextLeaseEnd: db
        .prepare<[], number | null>("SELECT MIN(lease_until) FROM deliveries WHERE state = 'in_flight'")
        .pluck(),
      attempt: db.prepare(
        `INSERT INTO delivery_attempts (delivery_id, attempt, trigger, started_at, duration_ms, status, error,
           response_excerpt, target_address, target_kind, request_headers)
         VALUES (@delivery_id, @attempt, @trigger, @started_at, @duration_ms, @status, @error, @response_excerpt,
           @target_address, @target_kind, @request_headers)`,
      ),
      settle: db.prepare(
        `UPDATE deliveries SET state = @state, attempts = @attempts, next_attempt_at = @next_attempt_at,
           lease_until = NULL, replay = 0, completed_at = @completed_at WHERE id = @id`,
      ),
      get: db.prepare<[string], DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = ?`),
      attempts: db.prepare<
        [string],
        Omit<AttemptRecord, 'requestHeaders'> & { requestHeaders: string | null }
      >(
        `SELECT attempt, trigger, started_at AS startedAt, duration_ms AS durationMs, status, error,
                response_excerpt AS responseExcerpt, target_address AS targetAddress, target_kind AS targetKind,
                request_headers AS requestHeaders
         FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt`,
      ),
      replay: db.prepare<[number, string]>(
        `UPDATE deliveries SET state = 'pending', next_attempt_at = ?, completed_at = NULL,
           replay = CASE WHEN state IN ('failed', 'succeeded') THEN 1 ELSE 0 END
         WHERE id = ? AND state != 'in_flight'`,
      ),
      purge: db.prepare<[number]>(
        "DELETE FROM deliveries WHERE state IN ('succeeded', 'failed') AND completed_at < ?",
      ),
      count: db.prepare<[string], number>('SELECT COUNT(*) FROM deliveries WHERE webhook_id = ?').pluck(),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
      countState: db
        .prepare<[string, string], number>(
          'SELECT COUNT(*) FROM deliveries WHERE webhook_id = ? AND state = ?',
        )
        .pluck(),
      page: db.prepare<[string, number, number], DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE webhook_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
      ),
      pageState: db.prepare<[string, string, number, number], DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE webhook_id = ? AND state = ?
         ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
      ),
    };
  }

  /** Queue a notification, due now. Synchronous and outside the interface: called inside the transaction that
   * records the change. */
  enqueue(webhookId: string, event: string, payload: string, nowMs: number): string {
    const id = `dlv_${randomBytes(12).toString('base64url')}`;
    this.#stmts.insert.run(id, webhookId, event, payload, nowMs, nowMs);
    return id;
  }

  /**
   * Claim up to `limit` due deliveries of active webhooks (pending and due, or in flight with an expired lease),
   * leasing them until `nowMs + leaseMs`. `accept` may turn one down (e.g. its webhook is at its concurrency cap).
   */
  async claimDue(
    nowMs: number,
    limit: number,
    leaseMs: number,
    accept: (d: DeliveryRecord) => boolean = () => true,
  ): Promise<DeliveryRecord[]> {
    return this.#db.transaction(() => {
      const claimed: DeliveryRecord[] = [];
      const rows = [
        ...this.#stmts.dueExpired.all(nowMs, limit * 4),
        ...this.#stmts.duePending.all(nowMs, limit * 4),
      ];
      for (const row of rows) {
        if (claimed.length >= limit) break;
        const d = toDeliveryRecord(row);
        if (!accept(d)) continue;
        this.#stmts.claim.run(nowMs + leaseMs, d.id);
        claimed.push({ ...d, state: 'in_flight' });
      }
      return claimed;
    })();
  }

  /** When the next pending delivery of an active webhook is due (or a lease expires); null when none. */
  async nextDueAt(): Promise<number | null> {
    const pending = this.#stmts.nextPending.get() ?? null;
    const lease = this.#stmts.nextLeaseEnd.get() ?? null;
    if (pending === null) return lease;
    return lease === null ? pending : Math.min(pending, lease);
  }

  /** Record one attempt and the delivery's new state, atomically. */
  async settle(delivery: DeliveryRecord, attempt: AttemptOutcome, next: NextState): Promise<void> {
    this.#db.transaction(() => {
      const number = delivery.attempts + 1;
      this.#stmts.attempt.run({
        delivery_id: delivery.id,
        attempt: number,
        trigger: attempt.trigger,
        started_at: attempt.startedAt,
        duration_ms: attempt.durationMs,
        status: attempt.status,
        error: attempt.error,
        response_excerpt: attempt.responseExcerpt,
        target_address: attempt.targetAddress ?? null,
        target_kind: attempt.targetKind ?? null,
        request_headers: attempt.requestHeaders ? JSON.stringify(attempt.requestHeaders) : null,
      });
      this.#stmts.settle.run({
        id: delivery.id,
        state: next.state,
        attempts: number,
        next_attempt_at: next.nextAttemptAt,
        completed_at: next.completedAt,
      });
    })();
  }

  async get(id: string): Promise<DeliveryRecord | null> {
    const row = this.#stmts.get.get(id);
    return row ? toDeliveryRecord(row) : null;
  }

  async attemptsOf(id: string): Promise<AttemptRecord[]> {
    return this.#stmts.attempts.all(id).map((a) => ({
      ...a,
      requestHeaders:
        a.requestHeaders === null ? null : (JSON.parse(a.requestHeaders) as Record<string, string>),
    }));
  }

  /** Newest first, optionally one state. */
  async page(
    webhookId: string,
    options: { state?: DeliveryState; limit: number; offset: number },
  ): Promise<DeliveryPage> {
    const rows = options.state
      ? this.#stmts.pageState.all(webhookId, options.state, options.limit, options.offset)
      : this.#stmts.page.all(webhookId, options.limit, options.offset);
    const total = options.state
      ? this.#stmts.countState.get(webhookId, options.state)!
      : this.#stmts.count.get(webhookId)!;
    return { total, data: rows.map(toDeliveryRecord) };
  }

  /**
   * A manual replay: a new attempt now. For a finished delivery it is one extra attempt (not retried on
   * failure); for one awaiting a retry it brings that retry forward and the schedule goes on from there.
   * False when it is in flight right now.
   */
  async requestReplay(id: string, nowMs: number): Promise<boolean> {
    return this.#stmts.replay.run(nowMs, id).changes > 0;
  }

  /**
   * SQLite's `data_version`: it changes when ANOTHER connection (the CLI, a second instance) commits to the
   * database, never for this connection's own writes. Polling it is how work queued elsewhere is noticed.
   */
  async externalVersion(): Promise<number> {
    return this.#stmts.dataVersion.get()!;
  }

  /** Log retention: forget finished deliveries (and their attempts) completed before `beforeMs`. */
  async purgeFinished(beforeMs: number): Promise<number> {
    return this.#stmts.purge.run(beforeMs).changes;
  }
}
