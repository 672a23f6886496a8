/**
 * `Idempotency-Key` records in SQLite, the implementation of Idempotency (repositories/idempotency.ts, which
 * says the flow). Records expire after 24 h. A pending record older than `pendingTtlMs` (a process that died mid-request)
 * no longer blocks the key: the next begin() takes it over.
 */
import type Database from 'better-sqlite3';
import type { BeginResult, Idempotency } from '../repositories/idempotency.ts';
import { type SecretBox, sealContext } from '../secrets/at-rest.ts';
import { secretsOf } from '../secrets/db-binding.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a pending (begun, not completed) record blocks retries before it is considered abandoned. */
export const IDEMPOTENCY_PENDING_TTL_MS = 10 * 60 * 1000;
/** begin() purges expired records at most this often. */
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

export interface IdempotencyOptions {
  /** Records older than this are forgotten (default 24 h). */
  ttlMs?: number;
  /** Pending records older than this are taken over by the next begin() (default 10 min). */
  pendingTtlMs?: number;
  /** Seals stored answers (one may hold a webhook secret); default: the data key the database was opened with. */
  box?: SecretBox;
}

interface IdemRow {
  fingerprint: string;
  state: 'pending' | 'done';
  status: number | null;
  content_type: string | null;
  body: string | null;
  created_at: number;
}

export class IdempotencyStore implements Idempotency {
  private readonly clock: () => Date;
  private readonly ttlMs: number;
  private readonly pendingTtlMs: number;
  private readonly box: SecretBox;
  private lastPurge = Number.NEGATIVE_INFINITY;
  private readonly beginTx: (
    apiKeyId: string,
    idemKey: string,
    fingerprint: string,
    now: number,
  ) => BeginResult;
  private readonly stmts: {
    insert: Database.Statement<[string, string, string, number]>;
    get: Database.Statement<[string, string], IdemRow>;
    restart: Database.Statement<[string, number, string, string]>;
    complete: Database.Statement<[number, string, string, string, string]>;
    abandon: Database.Statement<[string, string]>;
    purge: Database.Statement<[number]>;
  };

  constructor(db: Database.Database, clock: () => Date = () => new Date(), options: IdempotencyOptions = {}) {
    this.clock = clock;
    this.ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.pendingTtlMs = options.pendingTtlMs ?? IDEMPOTENCY_PENDING_TTL_MS;
    this.box = options.box ?? secretsOf(db).box;
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO idempotency_keys (api_key_id, idem_key, fingerprint, state, created_at)
         VALUES (?, ?, ?, 'pending', ?)
         ON CONFLICT (api_key_id, idem_key) DO NOTHING`,
      ),
      get: db.prepare(
        `SELECT fingerprint, state, status, content_type, body, created_at
         FROM idempotency_keys WHERE api_key_id = ? AND idem_key = ?`,
      ),
      restart: db.prepare(
        `UPDATE idempotency_keys
         SET fingerprint = ?, state = 'pending', status = NULL, content_type = NULL, body = NULL, created_at = ?
         WHERE api_key_id = ? AND idem_key = ?`,
      ),
      complete: db.prepare(
        `UPDATE idempotency_keys SET state = 'done', status = ?, content_type = ?, body = ?
         WHERE api_key_id = ? AND idem_key = ? AND state = 'pending'`,
      ),
      abandon: db.prepare(
        `DELETE FROM idempotency_keys WHERE api_key_id = ? AND idem_key = ? AND state = 'pending'`,
      ),
      purge: db.prepare('DELETE FROM idempotency_keys WHERE created_at <= ?'),
    };

    // One IMMEDIATE transaction so two processes (or a server and a CLI) cannot both see 'new'.
    const tx = db.transaction((apiKeyId: string, idemKey: string, fingerprint: string, now: number) => {
      if (this.stmts.insert.run(apiKeyId, idemKey, fingerprint, now).changes > 0)
        return { state: 'new' } as const;
      const row = this.stmts.get.get(apiKeyId, idemKey);
      if (!row) {
        // Cannot happen inside the transaction; treat as fresh to be safe.
        this.stmts.insert.run(apiKeyId, idemKey, fingerprint, now);
        return { state: 'new' } as const;
      }
      const age = now - row.created_at;
      const expired = age >= this.ttlMs || (row.state === 'pending' && age >= this.pendingTtlMs);
      if (expired) {
        this.stmts.restart.run(fingerprint, now, apiKeyId, idemKey);
        return { state: 'new' } as const;
      }
      if (row.fingerprint !== fingerprint) return { state: 'conflict' } as const;
      if (row.state === 'pending') return { state: 'in_progress' } as const;
      return {
        state: 'replay',
        status: row.status ?? 200,
        body:
          row.body === null ? '' : this.box.open(row.body, sealContext.idempotentAnswer(apiKeyId, idemKey)),
        contentType: row.content_type ?? 'application/json',
      } as const;
    });
    this.beginTx = (...args) => tx.immediate(...args);
  }

  async begin(apiKeyId: string, idemKey: string, fingerprint: string): Promise<BeginResult> {
    const now = this.clock().getTime();
    if (now - this.lastPurge >= PURGE_INTERVAL_MS || now < this.lastPurge) this.#purgeExpired();
    return this.beginTx(apiKeyId, idemKey, fingerprint, now);
  }

  /** Store the response of a request begun with begin(), sealed; later repeats replay it. */
  async complete(
    apiKeyId: string,
    idemKey: string,
    status: number,
    contentType: string,
    body: string,
  ): Promise<void> {
    const sealed = this.box.seal(body, sealContext.idempotentAnswer(apiKeyId, idemKey));
    this.stmts.complete.run(status, contentType, sealed, apiKeyId, idemKey);
  }

  /** Forget a pending request (it failed), so the client may retry with the same key. */
  async abandon(apiKeyId: string, idemKey: string): Promise<void> {
    this.stmts.abandon.run(apiKeyId, idemKey);
  }

  /** Delete records older than the TTL. Returns how many were deleted. */
  async purgeExpired(): Promise<number> {
    return this.#purgeExpired();
  }

  #purgeExpired(): number {
    const now = this.clock().getTime();
    this.lastPurge = now;
    return this.stmts.purge.run(now - this.ttlMs).changes;
  }
}
