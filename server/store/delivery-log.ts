/**
 * The delivery log's own statements in SQLite (repositories/rules/delivery-log.ts): each webhook's health and the
 * log's fingerprint; its pages are the outbox's (deliveries.ts).
 */
import type Database from 'better-sqlite3';
import {
  type DeliveryLogStatements,
  HEALTH_WINDOW,
  type TriedRow,
} from '../repositories/rules/delivery-log.ts';
import type { LogCondition } from '../repositories/rules/outbox.ts';
import type { SqliteOutboxStatements } from './deliveries.ts';

// An attempt succeeded when the receiver answered 2xx and the answer arrived whole (the sender's rule).
const SUCCEEDED = 'a.error IS NULL AND a.status BETWEEN 200 AND 299';

export class SqliteDeliveryLogStatements implements DeliveryLogStatements {
  readonly #outbox: SqliteOutboxStatements;
  readonly #lastTried: Database.Statement<[string], TriedRow>;
  readonly #failedSinceSuccess: Database.Statement<[string], number>;
  readonly #fingerprint: Database.Statement<[], string>;

  constructor(db: Database.Database, outbox: SqliteOutboxStatements) {
    this.#outbox = outbox;
    // The attempts of the webhook's newest deliveries, found through deliveries_log (webhook_id, created_at):
    // the cost stays the same however long the log grew, and never touches the payloads.
    const tried = `WITH recent AS (SELECT id FROM deliveries WHERE webhook_id = ? ORDER BY created_at DESC LIMIT ${HEALTH_WINDOW}),
      tried AS (SELECT a.started_at, a.attempt, a.status, a.error, (${SUCCEEDED}) AS ok
                FROM delivery_attempts a JOIN recent r ON r.id = a.delivery_id)`;
    this.#lastTried = db.prepare(
      `${tried} SELECT started_at, status, error, ok FROM tried ORDER BY started_at DESC, attempt DESC LIMIT 1`,
    );
    this.#failedSinceSuccess = db
      .prepare<[string], number>(
        `${tried} SELECT COUNT(*) FROM tried
         WHERE NOT ok AND started_at > IFNULL((SELECT MAX(started_at) FROM tried WHERE ok), -1)`,
      )
      .pluck();
    // Read from the deliveries_due index alone (state, next_attempt_at), never the payloads: every queueing,
    // claim, retry schedule, settling, replay and removal moves the per-state counts or due times.
    this.#fingerprint = db
      .prepare<[], string>(
        `SELECT IFNULL(MAX(rowid), 0) || '|' || IFNULL((
           SELECT group_concat(state || '=' || n || '/' || due, ',')
           FROM (SELECT state, COUNT(*) AS n, IFNULL(SUM(next_attempt_at), 0) AS due
                 FROM deliveries INDEXED BY deliveries_due GROUP BY state ORDER BY state)), '')
         FROM deliveries`,
      )
      .pluck();
  }

  lastTried(webhookId: string): TriedRow | undefined {
    return this.#lastTried.get(webhookId);
  }

  failedSinceSuccess(webhookId: string): number {
    return this.#failedSinceSuccess.get(webhookId) ?? 0;
  }

  fingerprint(): string {
    return this.#fingerprint.get()!;
  }

  page(where: readonly LogCondition[], limit: number, offset: number) {
    return this.#outbox.page(where, limit, offset);
  }

  count(where: readonly LogCondition[]): number {
    return this.#outbox.count(where);
  }
}
