/**
 * The outbox's tables in SQLite (deliveries, delivery_attempts): the statements of repositories/rules/outbox.ts.
 * Inside the rules' IMMEDIATE transaction nothing else writes, so what a claim reads is held; other processes
 * learn of new work through SQLite's data_version.
 */
import type Database from 'better-sqlite3';
import type { NextState } from '../repositories/deliveries.ts';
import {
  type AttemptRow,
  DELIVERY_COLUMNS,
  DELIVERY_COLUMNS_D,
  type DeliveryRow,
  type LogCondition,
  type OutboxStatements,
} from '../repositories/rules/outbox.ts';

type Filtered<R> = Database.Statement<(string | number)[], R>;

export class SqliteOutboxStatements implements OutboxStatements {
  readonly #db: Database.Database;
  readonly #stmts;
  /** The page and count statements, by their WHERE clause (eight at most). */
  readonly #filtered = new Map<string, { page: Filtered<DeliveryRow>; count: Filtered<number> }>();

  constructor(db: Database.Database) {
    this.#db = db;
    this.#stmts = {
      // Two index-driven halves (deliveries_due serves both the filter and the order), so a claim reads only
      // the rows it returns however long the queue is; an OR across both states would scan and sort it all.
      duePending: db.prepare<[number, number], DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS_D} FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND w.status = 'active'
         ORDER BY d.next_attempt_at LIMIT ?`,
      ),
      claimExpired: db.prepare<[number, number], DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS_D} FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id
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
      nextClaimEnd: db
        .prepare<[], number | null>("SELECT MIN(lease_until) FROM deliveries WHERE state = 'in_flight'")
        .pluck(),
      attempt: db.prepare<[AttemptRow & { delivery_id: string }]>(
        `INSERT INTO delivery_attempts (delivery_id, attempt, trigger, started_at, duration_ms, status, error,
           response_excerpt, target_address, target_kind, request_headers)
         VALUES (@delivery_id, @attempt, @trigger, @started_at, @duration_ms, @status, @error, @response_excerpt,
           @target_address, @target_kind, @request_headers)`,
      ),
      settle: db.prepare<[string, number, number | null, number | null, string]>(
        `UPDATE deliveries SET state = ?, attempts = ?, next_attempt_at = ?, lease_until = NULL, replay = 0,
           completed_at = ? WHERE id = ?`,
      ),
      get: db.prepare<[string], DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE id = ?`),
      attempts: db.prepare<[string], AttemptRow>(
        `SELECT attempt, trigger, started_at, duration_ms, status, error, response_excerpt, target_address,
                target_kind, request_headers
         FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt`,
      ),
      replayAt: db.prepare<[number, number, string]>(
        `UPDATE deliveries SET state = 'pending', next_attempt_at = ?, completed_at = NULL, replay = ?
         WHERE id = ?`,
      ),
      purge: db.prepare<[number]>(
        "DELETE FROM deliveries WHERE state IN ('succeeded', 'failed') AND completed_at < ?",
      ),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    };
  }

  duePending(nowMs: number, limit: number): DeliveryRow[] {
    return this.#stmts.duePending.all(nowMs, limit);
  }

  claimExpired(nowMs: number, limit: number): DeliveryRow[] {
    return this.#stmts.claimExpired.all(nowMs, limit);
  }

  claim(ids: readonly string[], claimedUntil: number): void {
    for (const id of ids) this.#stmts.claim.run(claimedUntil, id);
  }

  nextPendingAt(): number | null {
    return this.#stmts.nextPending.get() ?? null;
  }

  nextClaimEnd(): number | null {
    return this.#stmts.nextClaimEnd.get() ?? null;
  }

  addAttempt(deliveryId: string, attempt: AttemptRow): void {
    this.#stmts.attempt.run({ ...attempt, delivery_id: deliveryId });
  }

  settle(deliveryId: string, attempts: number, next: NextState): void {
    this.#stmts.settle.run(next.state, attempts, next.nextAttemptAt, next.completedAt, deliveryId);
  }

  byId(id: string): DeliveryRow | undefined {
    return this.#stmts.get.get(id);
  }

  attemptsOf(deliveryId: string): AttemptRow[] {
    return this.#stmts.attempts.all(deliveryId);
  }

  page(where: readonly LogCondition[], limit: number, offset: number): DeliveryRow[] {
    return this.#filter(where).page.all(...where.map((c) => c.value), limit, offset);
  }

  count(where: readonly LogCondition[]): number {
    return this.#filter(where).count.get(...where.map((c) => c.value)) ?? 0;
  }

  replayAt(id: string, nowMs: number, replay: boolean): void {
    this.#stmts.replayAt.run(nowMs, replay ? 1 : 0, id);
  }

  /** The delivery worker of every process polls data_version, which this commit moves for the others. */
  deliveriesChanged(): void {}

  /**
   * SQLite's `data_version`: it changes when ANOTHER connection (the CLI, a second instance) commits to the
   * database, never for this connection's own writes. Polling it is how work queued elsewhere is noticed.
   */
  externalVersion(): number {
    return this.#stmts.dataVersion.get()!;
  }

  purgeFinished(beforeMs: number): number {
    return this.#stmts.purge.run(beforeMs).changes;
  }

  #filter(where: readonly LogCondition[]): { page: Filtered<DeliveryRow>; count: Filtered<number> } {
    const clause = where.length ? `WHERE ${where.map((c) => `${c.column} = ?`).join(' AND ')}` : '';
    let statements = this.#filtered.get(clause);
    if (!statements) {
      statements = {
        page: this.#db.prepare(
          `SELECT ${DELIVERY_COLUMNS} FROM deliveries ${clause} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
        ),
        count: this.#db
          .prepare<(string | number)[], number>(`SELECT COUNT(*) FROM deliveries ${clause}`)
          .pluck(),
      };
      this.#filtered.set(clause, statements);
    }
    return statements;
  }
}
