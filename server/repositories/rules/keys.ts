/**
 * API keys, once for both databases. A key is `sp_` + 32 random bytes (base64url) and is shown once, at creation;
 * only its sha256 is stored.
 *
 * Why a plain sha256 and not bcrypt/scrypt/argon2: slow hashes exist to make guessing low-entropy passwords
 * expensive. These keys carry 256 random bits, so there is nothing to guess and a fast hash is already
 * preimage-resistant; a slow hash would only add milliseconds to every request. A deterministic, unsalted
 * hash also lets `findByKey` find the key through a unique index instead of comparing secrets row by row; the
 * timing of that lookup depends on the hash of the presented key, which tells an attacker nothing useful.
 *
 * Each database implements `KeyStatements` in its SQL (store/api-keys.ts, store-pg/keys.ts). The pure rules come
 * first: the key's form, its hash, the throttle of last-used writes, the checks of a new key and of a plan change.
 */
import { hash, randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import {
  type ApiKeyRecord,
  type CreateApiKeyInput,
  KEY_PLANS,
  KEY_SCOPES,
  type KeyPlan,
  type KeyScope,
  type Keys,
  type PlanChange,
} from '../keys.ts';
import { type Answer, settled, type Transactional } from './transactional.ts';

export const KEY_PREFIX = 'sp_';
/** How many leading characters of a key are kept in clear, to recognise it in listings. */
export const KEY_DISPLAY_PREFIX_LENGTH = 12;
/** `touch` writes last_used_at at most this often per key. */
export const TOUCH_INTERVAL_MS = 10_000;
/** Longer input cannot be a key; refuse it before hashing. */
export const MAX_KEY_LENGTH = 256;

/** SHA-256 in hex, one-shot: every request with a key hashes it, and a Hash object per call cost several µs. */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A new key in clear (shown once) and its public id. */
export function newKey(): { key: string; id: string } {
  return {
    key: KEY_PREFIX + randomBytes(32).toString('base64url'),
    id: `key_${randomBytes(8).toString('base64url').slice(0, 10)}`,
  };
}

/**
 * Whether a key's last-used time is due a write (at most once per TOUCH_INTERVAL_MS per key, or when the clock
 * stepped back); when it is, `lastTouch` (id -> epoch ms of this process's last write) is updated.
 */
export function touchDue(lastTouch: Map<string, number>, id: string, nowMs: number): boolean {
  const last = lastTouch.get(id);
  if (last !== undefined && nowMs - last < TOUCH_INTERVAL_MS && nowMs >= last) return false;
  lastTouch.set(id, nowMs);
  return true;
}

/** A new key's scope, plan and limits, checked (AppError `invalid_parameter` naming the parameter). */
export function checkNewKey(input: CreateApiKeyInput): {
  scope: KeyScope;
  plan: KeyPlan;
  perSecond: number | null;
  daily: number | null;
} {
  const scope = input.scope ?? 'read';
  const plan = input.plan ?? 'free';
  if (!KEY_SCOPES.includes(scope)) {
    throw new AppError('invalid_parameter', `Unknown scope '${scope}': expected read or read_write`, {
      parameter: 'scope',
    });
  }
  checkPlan(plan);
  return { scope, plan, ...checkPlanLimits(plan, input.perSecond, input.daily) };
}

/** A plan change's limits, checked. */
export function checkPlanChange(change: PlanChange): { perSecond: number | null; daily: number | null } {
  checkPlan(change.plan);
  return checkPlanLimits(change.plan, change.perSecond, change.daily);
}

function checkPlan(plan: KeyPlan): void {
  if (!KEY_PLANS.includes(plan)) {
    throw new AppError('invalid_parameter', `Unknown plan '${plan}': expected free, pro or enterprise`, {
      parameter: 'plan',
    });
  }
}

/**
 * Free and Pro have fixed numbers; Enterprise keys carry their own, both of them. Refusing numbers on the other
 * plans keeps a key's limits answerable from its plan alone.
 */
function checkPlanLimits(
  plan: KeyPlan,
  perSecondInput: number | null | undefined,
  dailyInput: number | null | undefined,
): { perSecond: number | null; daily: number | null } {
  const perSecond = checkLimit('perSecond', perSecondInput);
  const daily = checkLimit('daily', dailyInput);
  if (plan === 'enterprise' && (perSecond === null || daily === null)) {
    throw new AppError('invalid_parameter', 'Enterprise keys need both a per-second and a daily limit', {
      parameter: perSecond === null ? 'perSecond' : 'daily',
    });
  }
  if (plan !== 'enterprise' && (perSecond !== null || daily !== null)) {
    throw new AppError(
      'invalid_parameter',
      `Custom limits are for enterprise keys; the ${plan} plan's are fixed`,
      {
        parameter: perSecond !== null ? 'perSecond' : 'daily',
      },
    );
  }
  return { perSecond, daily };
}

function checkLimit(name: string, value: number | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new AppError('invalid_parameter', `${name} must be a whole number >= 0`, { parameter: name });
  }
  return value;
}

/** A key as both databases read it back (`allow_formulas` 0 or 1 in SQLite, a boolean in PostgreSQL). */
export interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  scope: KeyScope;
  plan: KeyPlan;
  per_second: number | null;
  daily: number | null;
  allow_formulas: number | boolean;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** The spreadsheet ids of its allow-list (api_key_connections), in any order. */
  connections: string[];
}

/** What a new key stores: the hash in place of the key, no use or revocation yet, the allow-list apart. */
export type NewKeyRow = Omit<KeyRow, 'last_used_at' | 'revoked_at' | 'connections'> & { key_hash: string };

export interface KeyStatements {
  /** Whether the connection exists, held until the transaction ends (its removal waits for the key, or goes
   * first). */
  connectionExists(spreadsheetId: string): Answer<boolean>;
  insert(row: NewKeyRow, connections: readonly string[]): Answer<void>;
  /** Runs on every request: one index lookup (or an answer kept a moment, dropped on any registry change). */
  byHash(keyHash: string): Answer<KeyRow | undefined>;
  byId(id: string): Answer<KeyRow | undefined>;
  /** In creation order: `created_at`, then the database's insertion order. */
  list(): Answer<KeyRow[]>;
  /** False when there is no such key or it is revoked already. */
  revoke(id: string, at: string): Answer<boolean>;
  touch(id: string, at: string): Answer<boolean>;
  setPlan(id: string, plan: KeyPlan, perSecond: number | null, daily: number | null): Answer<void>;
  /** Whoever keeps what it read of the registry reads it again once this commits. */
  registryChanged(): Answer<void>;
}

export class KeyRepository implements Keys {
  readonly #db: Transactional<KeyStatements>;
  readonly #clock: () => Date;
  /** id -> epoch ms of this process's last last_used_at write (a hint: each process throttles its own). */
  readonly #lastTouch = new Map<string, number>();

  constructor(db: Transactional<KeyStatements>, clock: () => Date = () => new Date()) {
    this.#db = db;
    this.#clock = clock;
  }

  async create(input: CreateApiKeyInput = {}): Promise<{ record: ApiKeyRecord; key: string }> {
    const { scope, plan, perSecond, daily } = checkNewKey(input);
    const connections = [...new Set(input.connections ?? [])];
    const { key, id } = newKey();
    const row: NewKeyRow = {
      id,
      key_hash: hashKey(key),
      prefix: key.slice(0, KEY_DISPLAY_PREFIX_LENGTH),
      name: input.name?.trim() ?? '',
      scope,
      plan,
      per_second: perSecond,
      daily,
      allow_formulas: input.allowFormulas === true,
      created_at: this.#clock().toISOString(),
    };
    const stored = await this.#db.transaction(function* (s) {
      for (const spreadsheetId of connections) {
        if (!(yield* settled(s.connectionExists(spreadsheetId)))) {
          throw new AppError('spreadsheet_not_found', `Unknown connection '${spreadsheetId}'`, {
            parameter: 'connections',
          });
        }
      }
      yield* settled(s.insert(row, connections));
      yield* settled(s.registryChanged());
      return yield* settled(s.byId(id));
    });
    if (!stored) throw new Error('api key insert returned no row');
    return { record: keyRecord(stored), key };
  }

  /** Revoked keys are found too (check `revokedAt`), so the caller can say "revoked" rather than "unknown". */
  async findByKey(key: string): Promise<ApiKeyRecord | null> {
    if (!key.startsWith(KEY_PREFIX) || key.length > MAX_KEY_LENGTH) return null;
    return recordOf(await this.#db.statements.byHash(hashKey(key)));
  }

  async setPlan(id: string, change: PlanChange): Promise<ApiKeyRecord | null> {
    const { perSecond, daily } = checkPlanChange(change);
    const row = await this.#db.transaction(function* (s) {
      yield* settled(s.setPlan(id, change.plan, perSecond, daily));
      yield* settled(s.registryChanged());
      return yield* settled(s.byId(id));
    });
    return recordOf(row);
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    return recordOf(await this.#db.statements.byId(id));
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await this.#db.statements.list()).map(keyRecord);
  }

  async revoke(id: string): Promise<boolean> {
    const at = this.#clock().toISOString();
    const revoked = await this.#db.transaction(function* (s) {
      const changed = yield* settled(s.revoke(id, at));
      if (changed) yield* settled(s.registryChanged());
      return changed;
    });
    if (revoked) this.#lastTouch.delete(id);
    return revoked;
  }

  /** At most one write per key every TOUCH_INTERVAL_MS (throttled in memory), so a busy key does not cost a
   * write on every request. A failed write (a full disk, the database away) never fails the request. */
  async touch(id: string): Promise<boolean> {
    const now = this.#clock();
    if (!touchDue(this.#lastTouch, id, now.getTime())) return false;
    try {
      return await this.#db.statements.touch(id, now.toISOString());
    } catch {
      return false;
    }
  }
}

function recordOf(row: KeyRow | undefined): ApiKeyRecord | null {
  return row ? keyRecord(row) : null;
}

function keyRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    plan: row.plan,
    perSecond: row.per_second,
    daily: row.daily,
    allowFormulas: row.allow_formulas === true || row.allow_formulas === 1,
    connections: [...row.connections].sort(),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
