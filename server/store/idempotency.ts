/**
 * The idempotency_keys table in SQLite: the statements of repositories/rules/idempotency.ts. Inside its IMMEDIATE
 * transaction nothing else writes, so a record read there is held.
 */
import type Database from 'better-sqlite3';
import type { IdempotencyRow, IdempotencyStatements } from '../repositories/rules/idempotency.ts';

export class SqliteIdempotencyStatements implements IdempotencyStatements {
  readonly #insert: Database.Statement<[string, string, string, number]>;
  readonly #get: Database.Statement<[string, string], IdempotencyRow>;
  readonly #restart: Database.Statement<[string, string, string, number]>;
  readonly #complete: Database.Statement<[number, string, string, string, string]>;
  readonly #abandon: Database.Statement<[string, string]>;
  readonly #purge: Database.Statement<[number]>;

  constructor(db: Database.Database) {
    this.#insert = db.prepare(
      `INSERT INTO idempotency_keys (api_key_id, idem_key, fingerprint, state, created_at)
       VALUES (?, ?, ?, 'pending', ?)
       ON CONFLICT (api_key_id, idem_key) DO NOTHING`,
    );
    this.#get = db.prepare(
      `SELECT fingerprint, state, status, content_type, body, created_at
       FROM idempotency_keys WHERE api_key_id = ? AND idem_key = ?`,
    );
    this.#restart = db.prepare(
      `INSERT INTO idempotency_keys (api_key_id, idem_key, fingerprint, state, created_at)
       VALUES (?, ?, ?, 'pending', ?)
       ON CONFLICT (api_key_id, idem_key) DO UPDATE SET fingerprint = excluded.fingerprint,
         state = 'pending', status = NULL, content_type = NULL, body = NULL, created_at = excluded.created_at`,
    );
    this.#complete = db.prepare(
      `UPDATE idempotency_keys SET state = 'done', status = ?, content_type = ?, body = ?
       WHERE api_key_id = ? AND idem_key = ? AND state = 'pending'`,
    );
    this.#abandon = db.prepare(
      `DELETE FROM idempotency_keys WHERE api_key_id = ? AND idem_key = ? AND state = 'pending'`,
    );
    this.#purge = db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?');
  }

  insertPending(apiKeyId: string, idemKey: string, fingerprint: string, nowMs: number): boolean {
    return this.#insert.run(apiKeyId, idemKey, fingerprint, nowMs).changes > 0;
  }

  held(apiKeyId: string, idemKey: string): IdempotencyRow | undefined {
    return this.#get.get(apiKeyId, idemKey);
  }

  restart(apiKeyId: string, idemKey: string, fingerprint: string, nowMs: number): void {
    this.#restart.run(apiKeyId, idemKey, fingerprint, nowMs);
  }

  complete(apiKeyId: string, idemKey: string, status: number, contentType: string, sealed: string): void {
    this.#complete.run(status, contentType, sealed, apiKeyId, idemKey);
  }

  abandon(apiKeyId: string, idemKey: string): void {
    this.#abandon.run(apiKeyId, idemKey);
  }

  purgeUntil(ms: number): number {
    return this.#purge.run(ms).changes;
  }
}
