/**
 * The idempotency_keys table in PostgreSQL: the statements of repositories/rules/idempotency.ts. The insert's
 * primary key decides between instances, and a record read in a transaction is locked for update.
 */
import type { IdempotencyRow, IdempotencyStatements } from '../repositories/rules/idempotency.ts';
import type { Queryable } from './pool.ts';
import type { Bind } from './transactional.ts';

export const pgIdempotencyStatements: Bind<IdempotencyStatements> = (db) => new PgIdempotencyStatements(db);

class PgIdempotencyStatements implements IdempotencyStatements {
  readonly #db: Queryable;

  constructor(db: Queryable) {
    this.#db = db;
  }

  async insertPending(
    apiKeyId: string,
    idemKey: string,
    fingerprint: string,
    nowMs: number,
  ): Promise<boolean> {
    const inserted = await this.#db.query(
      `INSERT INTO idempotency_keys (api_key_id, idem_key, fingerprint, state, created_at)
       VALUES ($1, $2, $3, 'pending', $4)
       ON CONFLICT (api_key_id, idem_key) DO NOTHING`,
      [apiKeyId, idemKey, fingerprint, nowMs],
    );
    return (inserted.rowCount ?? 0) > 0;
  }

  async held(apiKeyId: string, idemKey: string): Promise<IdempotencyRow | undefined> {
    const { rows } = await this.#db.query<IdempotencyRow>(
      `SELECT fingerprint, state, status, content_type, body, created_at
       FROM idempotency_keys WHERE api_key_id = $1 AND idem_key = $2 FOR UPDATE`,
      [apiKeyId, idemKey],
    );
    return rows[0];
  }

  async restart(apiKeyId: string, idemKey: string, fingerprint: string, nowMs: number): Promise<void> {
    await this.#db.query(
      `INSERT INTO idempotency_keys (api_key_id, idem_key, fingerprint, state, created_at)
       VALUES ($1, $2, $3, 'pending', $4)
       ON CONFLICT (api_key_id, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint,
         state = 'pending', status = NULL, content_type = NULL, body = NULL, created_at = excluded.created_at`,
      [apiKeyId, idemKey, fingerprint, nowMs],
    );
  }

  async complete(
    apiKeyId: string,
    idemKey: string,
    status: number,
    contentType: string,
    sealed: string,
  ): Promise<void> {
    await this.#db.query(
      `UPDATE idempotency_keys SET state = 'done', status = $1, content_type = $2, body = $3
       WHERE api_key_id = $4 AND idem_key = $5 AND state = 'pending'`,
      [status, contentType, sealed, apiKeyId, idemKey],
    );
  }

  async abandon(apiKeyId: string, idemKey: string): Promise<void> {
    await this.#db.query(
      `DELETE FROM idempotency_keys WHERE api_key_id = $1 AND idem_key = $2 AND state = 'pending'`,
      [apiKeyId, idemKey],
    );
  }

  async purgeUntil(ms: number): Promise<number> {
    const result = await this.#db.query('DELETE FROM idempotency_keys WHERE created_at <= $1', [ms]);
    return result.rowCount ?? 0;
  }
}
