/**
 * `Idempotency-Key` records, once for both databases (idempotency.ts says the flow): answers sealed at rest,
 * records kept 24 h, and a pending record older than the pending TTL (a process that died mid-request) no longer
 * blocks its key: the next begin() takes it over. Each database implements `IdempotencyStatements` in its SQL
 * (store/idempotency.ts, store-pg/idempotency.ts).
 */
import { type SecretBox, sealContext } from '../../secrets/at-rest.ts';
import type { BeginResult, Idempotency } from '../idempotency.ts';
import { type Answer, type Rule, settled, type Transactional } from './transactional.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a pending (begun, not completed) record blocks retries before it is considered abandoned. */
export const IDEMPOTENCY_PENDING_TTL_MS = 10 * 60 * 1000;
/** begin() purges expired records at most this often (per process). */
const PURGE_INTERVAL_MS = 10 * 60 * 1000;

export interface IdempotencyOptions {
  /** Records older than this are forgotten (default 24 h). */
  ttlMs?: number;
  /** Pending records older than this are taken over by the next begin() (default 10 min). */
  pendingTtlMs?: number;
}

export interface IdempotencyRow {
  fingerprint: string;
  state: 'pending' | 'done';
  status: number | null;
  content_type: string | null;
  /** The answer, sealed. */
  body: string | null;
  created_at: number;
}

export interface IdempotencyStatements {
  /** A pending record for the key, unless one exists (the primary key decides); whether it was inserted. */
  insertPending(apiKeyId: string, idemKey: string, fingerprint: string, nowMs: number): Answer<boolean>;
  /** The key's record, held until the transaction ends. */
  held(apiKeyId: string, idemKey: string): Answer<IdempotencyRow | undefined>;
  /** The key starts afresh: a pending record with this fingerprint, whatever was there. */
  restart(apiKeyId: string, idemKey: string, fingerprint: string, nowMs: number): Answer<void>;
  /** Fills a pending record with its answer (a done one stays as it is). */
  complete(
    apiKeyId: string,
    idemKey: string,
    status: number,
    contentType: string,
    sealed: string,
  ): Answer<void>;
  /** Deletes a pending record (never a done one). */
  abandon(apiKeyId: string, idemKey: string): Answer<void>;
  /** Deletes records created at or before `ms`; how many. */
  purgeUntil(ms: number): Answer<number>;
}

export class IdempotencyRepository implements Idempotency {
  readonly #db: Transactional<IdempotencyStatements>;
  readonly #box: SecretBox;
  readonly #clock: () => Date;
  readonly #ttlMs: number;
  readonly #pendingTtlMs: number;
  #lastPurge = Number.NEGATIVE_INFINITY;

  constructor(
    db: Transactional<IdempotencyStatements>,
    box: SecretBox,
    clock: () => Date = () => new Date(),
    options: IdempotencyOptions = {},
  ) {
    this.#db = db;
    this.#box = box;
    this.#clock = clock;
    this.#ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.#pendingTtlMs = options.pendingTtlMs ?? IDEMPOTENCY_PENDING_TTL_MS;
  }

  /** Two requests with one key never both see 'new', across processes: the insert's key decides, and an
   * existing record is read held. */
  async begin(apiKeyId: string, idemKey: string, fingerprint: string): Promise<BeginResult> {
    const now = this.#clock().getTime();
    if (now - this.#lastPurge >= PURGE_INTERVAL_MS || now < this.#lastPurge) await this.purgeExpired();
    // The usual case, a key not seen before, in one statement.
    if (await this.#db.statements.insertPending(apiKeyId, idemKey, fingerprint, now)) return { state: 'new' };
    return this.#db.transaction((s) => this.#beginAgain(s, apiKeyId, idemKey, fingerprint, now));
  }

  *#beginAgain(
    s: IdempotencyStatements,
    apiKeyId: string,
    idemKey: string,
    fingerprint: string,
    now: number,
  ): Rule<BeginResult> {
    if (yield* settled(s.insertPending(apiKeyId, idemKey, fingerprint, now))) return { state: 'new' };
    const row = yield* settled(s.held(apiKeyId, idemKey));
    const age = row ? now - row.created_at : Number.POSITIVE_INFINITY;
    if (!row || age >= this.#ttlMs || (row.state === 'pending' && age >= this.#pendingTtlMs)) {
      // Gone meanwhile (abandoned, purged) or expired: this request starts afresh under the key.
      yield* settled(s.restart(apiKeyId, idemKey, fingerprint, now));
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
  }

  /** Stores the answer of a request begun with begin(), sealed; later repeats replay it. */
  async complete(
    apiKeyId: string,
    idemKey: string,
    status: number,
    contentType: string,
    body: string,
  ): Promise<void> {
    const sealed = this.#box.seal(body, sealContext.idempotentAnswer(apiKeyId, idemKey));
    await this.#db.statements.complete(apiKeyId, idemKey, status, contentType, sealed);
  }

  async abandon(apiKeyId: string, idemKey: string): Promise<void> {
    await this.#db.statements.abandon(apiKeyId, idemKey);
  }

  async purgeExpired(): Promise<number> {
    const now = this.#clock().getTime();
    this.#lastPurge = now;
    return this.#db.statements.purgeUntil(now - this.#ttlMs);
  }
}
