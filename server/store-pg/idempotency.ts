/**
 * `Idempotency-Key` records in PostgreSQL, as store/idempotency.ts (the same TTLs and answers, sealed with the
 * team's key). `begin` is one transaction: the insert's unique key decides between instances, and an existing
 * record is read under its row lock, so two requests with one key never both see 'new'.
 */
import type { BeginResult, Idempotency } from '../repositories/idempotency.ts';
import { type SecretBox, sealContext } from '../secrets/at-rest.ts';
import { IDEMPOTENCY_PENDING_TTL_MS, IDEMPOTENCY_TTL_MS } from '../store/idempotency.ts';
import { type Pool, type Queryable, tx } from './pool.ts';

/** begin() purges expired records at most this often (per instance). */
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

interface IdemRow {
  fingerprint: string;
  state: 'pending' | 'done';
  status: number | null;
  content_type: string | null;
  body: string | null;
  created_at: number;
}

export interface PgIdempotencyOptions {
  box: SecretBox;
  clock?: () => Date;
  ttlMs?: number;
  pendingTtlMs?: number;
}

export class PgIdempotency implements Idempotency {
  readonly #pool: Pool;
  readonly #box: SecretBox;
  readonly #clock: () => Date;
  readonly #ttlMs: number;
  readonly #pendingTtlMs: number;
  #lastPurge = Number.NEGATIVE_INFINITY;

  constructor(pool: Pool, options: PgIdempotencyOptions) {
    this.#pool = pool;
    this.#box = options.box;
    this.#clock = options.clock ?? (() => new Date());
    this.#ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.#pendingTtlMs = options.pendingTtlMs ?? IDEMPOTENCY_PENDING_TTL_MS;
  }

  async begin(apiKeyId: string, idemKey: string, fingerprint: string): Promise<BeginResult> {
    const now = this.#clock().getTime();
    if (now - this.#lastPurge >= PURGE_INTERVAL_MS || now < this.#lastPurge) await this.purgeExpired();
    // The usual case, a key not seen before, in one round trip: the unique key lets one insert through.
    if (await this.#insert(this.#pool, apiKeyId, idemKey, fingerprint, now)) return { state: 'new' };
    return tx(this.#pool, async (client): Promise<BeginResult> => {
      if (await this.#insert(client, apiKeyId, idemKey, fingerprint, now)) return { state: 'new' };
      const { rows } = await client.query<IdemRow>(
        `SELECT fingerprint, state, status, content_type, body, created_at
         FROM idempotency_keys WHERE api_key_id = $1 AND idem_key = $2 FOR UPDATE`,
        [apiKeyId, idemKey],
      );
      const row = rows[0];
      const age = row ? now - row.created_at : Number.POSITIVE_INFINITY;
      const expired = !row || age >= this.#ttlMs || (row.state === 'pending' && age >= this.#pendingTtlMs);
      if (expired) {
        // Gone meanwhile (abandoned, purged) or expired: this request starts afresh under the key.
        await client.query(
          `INSERT INTO idempotency_keys (api_key_id, idem_key, fingerprint, state, created_at)
           VALUES ($1, $2, $3, 'pending', $4)
           ON CONFLICT (api_key_id, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint,
             state = 'pending', status = NULL, content_type = NULL, body = NULL, created_at = excluded.created_at`,
          [apiKeyId, idemKey, fingerprint, now],
        );
        return { state: 'new' };
      }
      if (row.fingerprint !== fingerprint) return { state: 'conflict' };
      if (row.state === 'pending') return { state: 'in_progress' };
      return {
        state: 'replay',
        status: row.status ?? 200,
        body:
          row.body === null ? '' : this.#box.open(row.body, sealContext.idempotentAnswer(apiKeyId, idemKey)),
        contentType: row.content_type ?? 'application/json',
      };
    });
  }

  async #insert(
    db: Queryable,
    apiKeyId: string,
    idemKey: string,
    fingerprint: string,
    now: number,
  ): Promise<boolean> {
    const inserted = await db.query(
      `INSERT INTO idempotency_keys (api_key_id, idem_key, fingerprint, state, created_at)
       VALUES ($1, $2, $3, 'pending', $4)
       ON CONFLICT (api_key_id, idem_key) DO NOTHING`,
      [apiKeyId, idemKey, fingerprint, now],
    );
    return (inserted.rowCount ?? 0) > 0;
  }

  async complete(
    apiKeyId: string,
    idemKey: string,
    status: number,
    contentType: string,
    body: string,
  ): Promise<void> {
    const sealed = this.#box.seal(body, sealContext.idempotentAnswer(apiKeyId, idemKey));
    await this.#pool.query(
      `UPDATE idempotency_keys SET state = 'done', status = $1, content_type = $2, body = $3
       WHERE api_key_id = $4 AND idem_key = $5 AND state = 'pending'`,
      [status, contentType, sealed, apiKeyId, idemKey],
    );
  }

  async abandon(apiKeyId: string, idemKey: string): Promise<void> {
    await this.#pool.query(
      `DELETE FROM idempotency_keys WHERE api_key_id = $1 AND idem_key = $2 AND state = 'pending'`,
      [apiKeyId, idemKey],
    );
  }

  async purgeExpired(): Promise<number> {
    const now = this.#clock().getTime();
    this.#lastPurge = now;
    const result = await this.#pool.query('DELETE FROM idempotency_keys WHERE created_at <= $1', [
      now - this.#ttlMs,
    ]);
    return result.rowCount ?? 0;
  }
}
