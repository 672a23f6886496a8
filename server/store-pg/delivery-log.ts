/**
 * The delivery log's own statements in PostgreSQL (repositories/rules/delivery-log.ts): each webhook's health
 * and the log's fingerprint; its pages are the outbox's (deliveries.ts).
 */
import {
  type DeliveryLogStatements,
  HEALTH_WINDOW,
  type TriedRow,
} from '../repositories/rules/delivery-log.ts';
import type { DeliveryRow, LogCondition } from '../repositories/rules/outbox.ts';
import type { PgOutboxStatements } from './deliveries.ts';
import type { Pool } from './pool.ts';

// An attempt succeeded when the receiver answered 2xx and the answer arrived whole (the sender's rule).
const SUCCEEDED = 'a.error IS NULL AND a.status BETWEEN 200 AND 299';
const TRIED = `WITH recent AS (SELECT id FROM deliveries WHERE webhook_id = $1 ORDER BY created_at DESC LIMIT ${HEALTH_WINDOW}),
  tried AS (SELECT a.started_at, a.attempt, a.status, a.error, (${SUCCEEDED}) AS ok
            FROM delivery_attempts a JOIN recent r ON r.id = a.delivery_id)`;

export class PgDeliveryLogStatements implements DeliveryLogStatements {
  readonly #pool: Pool;
  readonly #outbox: PgOutboxStatements;

  constructor(pool: Pool, outbox: PgOutboxStatements) {
    this.#pool = pool;
    this.#outbox = outbox;
  }

  async lastTried(webhookId: string): Promise<TriedRow | undefined> {
    const { rows } = await this.#pool.query<TriedRow>(
      `${TRIED} SELECT started_at, status, error, ok FROM tried ORDER BY started_at DESC, attempt DESC LIMIT 1`,
      [webhookId],
    );
    return rows[0];
  }

  async failedSinceSuccess(webhookId: string): Promise<number> {
    const { rows } = await this.#pool.query<{ n: number }>(
      `${TRIED} SELECT COUNT(*) AS n FROM tried
       WHERE NOT ok AND started_at > COALESCE((SELECT MAX(started_at) FROM tried WHERE ok), -1)`,
      [webhookId],
    );
    return rows[0]!.n;
  }

  /** The newest delivery, and per state the count and the sum of due times. */
  async fingerprint(): Promise<string> {
    const { rows } = await this.#pool.query<{ f: string }>(
      `SELECT COALESCE(MAX(seq), 0) || '|' || COALESCE((
         SELECT string_agg(state || '=' || n || '/' || due, ',' ORDER BY state)
         FROM (SELECT state, COUNT(*) AS n, COALESCE(SUM(next_attempt_at), 0) AS due
               FROM deliveries GROUP BY state) s), '') AS f
       FROM deliveries`,
    );
    return rows[0]!.f;
  }

  page(where: readonly LogCondition[], limit: number, offset: number): Promise<DeliveryRow[]> {
    return this.#outbox.page(where, limit, offset);
  }

  count(where: readonly LogCondition[]): Promise<number> {
    return this.#outbox.count(where);
  }
}
