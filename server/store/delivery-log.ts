/**
 * The delivery log across every webhook, for the dashboard: newest first, filtered by webhook, state and event,
 * and a cheap fingerprint of the log that changes whenever a delivery is queued, attempted or settled (the
 * dashboard's live updates poll it), and each webhook's health (its newest attempt, its failures in a row). The
 * per-webhook log of the `/v1` API stays in deliveries.ts.
 */
import type Database from 'better-sqlite3';
import type { DeliveryPage } from '../repositories/deliveries.ts';
import type { DeliveryLog, DeliveryLogFilter, WebhookHealthRecord } from '../repositories/delivery-log.ts';
import { DELIVERY_COLUMNS, type DeliveryRow, toDeliveryRecord } from './deliveries.ts';

// An attempt succeeded when the receiver answered 2xx and the answer arrived whole (the sender's rule).
// Health looks at the attempts of a webhook's newest deliveries only, so reading it costs the same at any size.
export const HEALTH_WINDOW = 200;
const SUCCEEDED = 'a.error IS NULL AND a.status BETWEEN 200 AND 299';

/** The SQLite implementation of DeliveryLog (repositories/delivery-log.ts). */
export class DeliveryLogQuery implements DeliveryLog {
  readonly #db: Database.Database;
  readonly #fingerprint;
  readonly #health;

  constructor(db: Database.Database) {
    this.#db = db;
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
    // The attempts of the webhook's newest HEALTH_WINDOW deliveries, found through deliveries_log (webhook_id,
    // created_at): the cost stays the same however long the log grew, and never touches the payloads.
    const tried = `WITH recent AS (SELECT id FROM deliveries WHERE webhook_id = ? ORDER BY created_at DESC LIMIT ${HEALTH_WINDOW}),
      tried AS (SELECT a.started_at, a.attempt, a.status, a.error, (${SUCCEEDED}) AS ok
                FROM delivery_attempts a JOIN recent r ON r.id = a.delivery_id)`;
    this.#health = {
      last: db.prepare<
        [string],
        { started_at: number; status: number | null; error: string | null; ok: number }
      >(
        `${tried} SELECT started_at, status, error, ok FROM tried ORDER BY started_at DESC, attempt DESC LIMIT 1`,
      ),
      failuresSinceSuccess: db
        .prepare<[string], number>(
          `${tried} SELECT COUNT(*) FROM tried
           WHERE NOT ok AND started_at > IFNULL((SELECT MAX(started_at) FROM tried WHERE ok), -1)`,
        )
        .pluck(),
    };
  }

  /** The newest attempt of a webhook's deliveries and how many failed in a row (for the dashboard's card). */
  async health(webhookId: string): Promise<WebhookHealthRecord> {
    const last = this.#health.last.get(webhookId);
    if (!last) return { last: null, failuresInARow: 0 };
    return {
      last: { startedAt: last.started_at, status: last.status, error: last.error, ok: last.ok === 1 },
      failuresInARow: last.ok === 1 ? 0 : (this.#health.failuresSinceSuccess.get(webhookId) as number),
    };
  }

  async page(filter: DeliveryLogFilter): Promise<DeliveryPage> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.webhookId !== undefined) {
      where.push('webhook_id = ?');
      args.push(filter.webhookId);
    }
    if (filter.state !== undefined) {
      where.push('state = ?');
      args.push(filter.state);
    }
    if (filter.event !== undefined) {
      where.push('event = ?');
      args.push(filter.event);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.#db
      .prepare<(string | number)[], number>(`SELECT COUNT(*) FROM deliveries ${clause}`)
      .pluck()
      .get(...args) as number;
    const rows = this.#db
      .prepare<(string | number)[], DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM deliveries ${clause} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
      )
      .all(...args, filter.limit, filter.offset);
    return { total, data: rows.map(toDeliveryRecord) };
  }

  /** Changes whenever any delivery is queued, attempted, replayed or settled (by this process or another). */
  async fingerprint(): Promise<string> {
    return this.#fingerprint.get() as string;
  }
}
