/**
 * The delivery log across every webhook in PostgreSQL (repositories/delivery-log.ts), with
 * store/delivery-log.ts's rules: filtered pages newest first, a fingerprint that moves whenever a delivery is
 * queued, claimed, attempted, replayed or removed (by any instance), and each webhook's health from the attempts
 * of its newest deliveries only.
 */
import type { DeliveryPage } from '../repositories/deliveries.ts';
import type { DeliveryLog, DeliveryLogFilter, WebhookHealthRecord } from '../repositories/delivery-log.ts';
import { PG_DELIVERY_COLUMNS, type PgDeliveryRow, pgDeliveryRecord } from './deliveries.ts';
import type { Pool } from './pool.ts';

/** Health reads the attempts of a webhook's newest deliveries only (SQLite's window). */
const HEALTH_WINDOW = 200;
// An attempt succeeded when the receiver answered 2xx and the answer arrived whole (the sender's rule).
const SUCCEEDED = 'a.error IS NULL AND a.status BETWEEN 200 AND 299';
const TRIED = `WITH recent AS (SELECT id FROM deliveries WHERE webhook_id = $1 ORDER BY created_at DESC LIMIT ${HEALTH_WINDOW}),
  tried AS (SELECT a.started_at, a.attempt, a.status, a.error, (${SUCCEEDED}) AS ok
            FROM delivery_attempts a JOIN recent r ON r.id = a.delivery_id)`;

export class PgDeliveryLog implements DeliveryLog {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  async health(webhookId: string): Promise<WebhookHealthRecord> {
    const { rows } = await this.#pool.query<{
      started_at: number;
      status: number | null;
      error: string | null;
      ok: boolean | null;
    }>(
      `${TRIED} SELECT started_at, status, error, ok FROM tried ORDER BY started_at DESC, attempt DESC LIMIT 1`,
      [webhookId],
    );
    const last = rows[0];
    if (!last) return { last: null, failuresInARow: 0 };
    const ok = last.ok === true;
    let failuresInARow = 0;
    if (!ok) {
      const failed = await this.#pool.query<{ n: number }>(
        `${TRIED} SELECT COUNT(*) AS n FROM tried
         WHERE NOT ok AND started_at > COALESCE((SELECT MAX(started_at) FROM tried WHERE ok), -1)`,
        [webhookId],
      );
      failuresInARow = failed.rows[0]!.n;
    }
    return {
      last: { startedAt: last.started_at, status: last.status, error: last.error, ok },
      failuresInARow,
    };
  }

  async page(filter: DeliveryLogFilter): Promise<DeliveryPage> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    for (const [column, value] of [
      ['webhook_id', filter.webhookId],
      ['state', filter.state],
      ['event', filter.event],
    ] as const) {
      if (value === undefined) continue;
      args.push(value);
      where.push(`${column} = $${args.length}`);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const [count, page] = await Promise.all([
      this.#pool.query<{ n: number }>(`SELECT COUNT(*) AS n FROM deliveries ${clause}`, args),
      this.#pool.query<PgDeliveryRow>(
        `SELECT ${PG_DELIVERY_COLUMNS} FROM deliveries ${clause}
         ORDER BY created_at DESC, seq DESC LIMIT $${args.length + 1} OFFSET $${args.length + 2}`,
        [...args, filter.limit, filter.offset],
      ),
    ]);
    return { total: count.rows[0]!.n, data: page.rows.map(pgDeliveryRecord) };
  }

  /** SQLite's fingerprint: the newest delivery, and per state the count and the sum of due times. */
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
}
