/**
 * API keys. A key is `sp_` + 32 random bytes (base64url) and is shown once, at creation; only its sha256 is
 * stored.
 *
 * Why a plain sha256 and not bcrypt/scrypt/argon2: slow hashes exist to make guessing low-entropy passwords
 * expensive. These keys carry 256 random bits, so there is nothing to guess and a fast hash is already
 * preimage-resistant; a slow hash would only add milliseconds to every request. A deterministic, unsalted
 * hash also lets `findByKey` find the key through a unique index instead of comparing secrets row by row; the
 * timing of that lookup depends on the hash of the presented key, which tells an attacker nothing useful.
 */
import type Database from 'better-sqlite3';
import { AppError } from '../errors.ts';
import type {
  ApiKeyRecord,
  CreateApiKeyInput,
  KeyPlan,
  KeyScope,
  Keys,
  PlanChange,
} from '../repositories/keys.ts';
import {
  checkNewKey,
  checkPlanChange,
  hashKey,
  KEY_DISPLAY_PREFIX_LENGTH,
  KEY_PREFIX,
  MAX_KEY_LENGTH,
  newKey,
  touchDue,
} from './api-key-rules.ts';

export { hashKey, KEY_DISPLAY_PREFIX_LENGTH, KEY_PREFIX, TOUCH_INTERVAL_MS } from './api-key-rules.ts';

interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  scope: KeyScope;
  plan: KeyPlan;
  per_second: number | null;
  daily: number | null;
  allow_formulas: number;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** JSON array of spreadsheet ids (from api_key_connections). */
  connections: string;
}

/** What an insert writes: the stored columns of a new key (the hash in place of the key; no use or revocation yet). */
type InsertRow = Omit<ApiKeyRow, 'last_used_at' | 'revoked_at' | 'connections'> & { key_hash: string };

const SELECT = `
  SELECT k.id, k.name, k.prefix, k.scope, k.plan, k.per_second, k.daily, k.allow_formulas,
         k.created_at, k.last_used_at, k.revoked_at,
         (SELECT json_group_array(c.spreadsheet_id) FROM api_key_connections c WHERE c.api_key_id = k.id)
           AS connections
  FROM api_keys k`;

/** The SQLite implementation of Keys (repositories/keys.ts). */
export class ApiKeyStore implements Keys {
  private readonly db: Database.Database;
  private readonly clock: () => Date;
  /** id -> epoch ms of the last last_used_at write by this process. */
  private readonly lastTouch = new Map<string, number>();
  private readonly stmts: {
    insert: Database.Statement<[InsertRow]>;
    insertConnection: Database.Statement<[string, string]>;
    connectionExists: Database.Statement<[string], number>;
    byHash: Database.Statement<[string], ApiKeyRow>;
    byId: Database.Statement<[string], ApiKeyRow>;
    list: Database.Statement<[], ApiKeyRow>;
    revoke: Database.Statement<[string, string]>;
    touch: Database.Statement<[string, string]>;
    setPlan: Database.Statement<[string, number | null, number | null, string]>;
  };

  constructor(db: Database.Database, clock: () => Date = () => new Date()) {
    this.db = db;
    this.clock = clock;
    // Prepared once: findByKey and touch run on every request.
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO api_keys (id, key_hash, prefix, name, scope, plan, per_second, daily, allow_formulas, created_at)
         VALUES (@id, @key_hash, @prefix, @name, @scope, @plan, @per_second, @daily, @allow_formulas, @created_at)`,
      ),
      insertConnection: db.prepare(
        'INSERT OR IGNORE INTO api_key_connections (api_key_id, spreadsheet_id) VALUES (?, ?)',
      ),
      connectionExists: db.prepare<[string], number>('SELECT 1 FROM connections WHERE id = ?').pluck(),
      byHash: db.prepare(`${SELECT} WHERE k.key_hash = ?`),
      byId: db.prepare(`${SELECT} WHERE k.id = ?`),
      list: db.prepare(`${SELECT} ORDER BY k.created_at, k.rowid`),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      touch: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
      setPlan: db.prepare('UPDATE api_keys SET plan = ?, per_second = ?, daily = ? WHERE id = ?'),
    };
  }

  /** Create a key. The plaintext `key` is returned only here; it cannot be recovered later. */
  async create(input: CreateApiKeyInput = {}): Promise<{ record: ApiKeyRecord; key: string }> {
    const { scope, plan, perSecond, daily } = checkNewKey(input);
    const connections = [...new Set(input.connections ?? [])];

    const { key, id } = newKey();
    const createdAt = this.clock().toISOString();

    this.db
      .transaction(() => {
        for (const spreadsheetId of connections) {
          if (!this.stmts.connectionExists.get(spreadsheetId)) {
            throw new AppError('spreadsheet_not_found', `Unknown connection '${spreadsheetId}'`, {
              parameter: 'connections',
            });
          }
        }
        this.stmts.insert.run({
          id,
          key_hash: hashKey(key),
          prefix: key.slice(0, KEY_DISPLAY_PREFIX_LENGTH),
          name: input.name?.trim() ?? '',
          scope,
          plan,
          per_second: perSecond,
          daily,
          allow_formulas: input.allowFormulas ? 1 : 0,
          created_at: createdAt,
        });
        for (const spreadsheetId of connections) this.stmts.insertConnection.run(id, spreadsheetId);
      })
      .immediate();

    const record = this.#get(id);
    if (!record) throw new Error('api key insert returned no row');
    return { record, key };
  }

  /**
   * The key's record, looked up by hash through the unique index. Revoked keys are returned too (check
   * `revokedAt`) so the caller can say "revoked" rather than "unknown".
   */
  async findByKey(key: string): Promise<ApiKeyRecord | null> {
    if (!key.startsWith(KEY_PREFIX) || key.length > MAX_KEY_LENGTH) return null;
    const row = this.stmts.byHash.get(hashKey(key));
    return row ? toRecord(row) : null;
  }

  /** Change a key's plan (and, for Enterprise, its numbers). Takes effect on the key's next request. */
  async setPlan(id: string, input: PlanChange): Promise<ApiKeyRecord | null> {
    const { perSecond, daily } = checkPlanChange(input);
    this.stmts.setPlan.run(input.plan, perSecond, daily, id);
    return this.#get(id);
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    return this.#get(id);
  }

  #get(id: string): ApiKeyRecord | null {
    const row = this.stmts.byId.get(id);
    return row ? toRecord(row) : null;
  }

  async list(): Promise<ApiKeyRecord[]> {
    return this.stmts.list.all().map(toRecord);
  }

  /** Revoke a key. False when there is no such key or it was already revoked. */
  async revoke(id: string): Promise<boolean> {
    const changed = this.stmts.revoke.run(this.clock().toISOString(), id).changes > 0;
    if (changed) this.lastTouch.delete(id);
    return changed;
  }

  /**
   * Record that the key was just used. Writes at most once per TOUCH_INTERVAL_MS per key (throttled in
   * memory), so a busy key does not cost a write on every request. Returns whether it wrote.
   */
  async touch(id: string): Promise<boolean> {
    const now = this.clock();
    if (!touchDue(this.lastTouch, id, now.getTime())) return false;
    try {
      return this.stmts.touch.run(now.toISOString(), id).changes > 0;
    } catch {
      // A full disk: a request is answered without it (tried again after the interval); it is a hint only.
      return false;
    }
  }
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  const connections = (JSON.parse(row.connections) as string[]).sort();
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    plan: row.plan,
    perSecond: row.per_second,
    daily: row.daily,
    allowFormulas: row.allow_formulas === 1,
    connections,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
