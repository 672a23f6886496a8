/**
 * API keys in PostgreSQL, by store/api-keys.ts's rules (store/api-key-rules.ts): only the key's sha256 is stored,
 * found through its unique index. No cache of keys: every request reads the row, so a revocation or a plan change
 * made on any instance (or by the CLI) holds on the very next request everywhere.
 */
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
} from '../store/api-key-rules.ts';
import { CHANNELS } from './channels.ts';
import type { PgListener } from './listener.ts';
import { type Pool, tx } from './pool.ts';
import { RegistryCache } from './registry-cache.ts';

interface ApiKeyRow {
  id: string;
  name: string;
  prefix: string;
  scope: KeyScope;
  plan: KeyPlan;
  per_second: number | null;
  daily: number | null;
  allow_formulas: boolean;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  connections: string[];
}

const SELECT = `
  SELECT k.id, k.name, k.prefix, k.scope, k.plan, k.per_second, k.daily, k.allow_formulas,
         k.created_at, k.last_used_at, k.revoked_at,
         ARRAY(SELECT c.spreadsheet_id FROM api_key_connections c WHERE c.api_key_id = k.id) AS connections
  FROM api_keys k`;

export class PgKeys implements Keys {
  readonly #pool: Pool;
  readonly #clock: () => Date;
  /** id -> epoch ms of this instance's last last_used_at write (a hint: each instance throttles its own). */
  readonly #lastTouch = new Map<string, number>();

  /** findByKey's answers, by key hash (registry-cache.ts: a second at most, dropped on any instance's change). */
  readonly #byHash: RegistryCache<ApiKeyRecord | null>;

  constructor(pool: Pool, clock: () => Date = () => new Date(), listener: PgListener | null = null) {
    this.#pool = pool;
    this.#clock = clock;
    this.#byHash = new RegistryCache(listener);
  }

  async create(input: CreateApiKeyInput = {}): Promise<{ record: ApiKeyRecord; key: string }> {
    const { scope, plan, perSecond, daily } = checkNewKey(input);
    const connections = [...new Set(input.connections ?? [])];
    const { key, id } = newKey();
    await tx(this.#pool, async (client) => {
      for (const spreadsheetId of connections) {
        // Locked so a removal of that spreadsheet on another instance waits for this key (or goes first).
        const found = await client.query('SELECT 1 FROM connections WHERE id = $1 FOR SHARE', [
          spreadsheetId,
        ]);
        if (found.rowCount === 0) {
          throw new AppError('spreadsheet_not_found', `Unknown connection '${spreadsheetId}'`, {
            parameter: 'connections',
          });
        }
      }
      await client.query(
        `INSERT INTO api_keys (id, key_hash, prefix, name, scope, plan, per_second, daily, allow_formulas, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          id,
          hashKey(key),
          key.slice(0, KEY_DISPLAY_PREFIX_LENGTH),
          input.name?.trim() ?? '',
          scope,
          plan,
          perSecond,
          daily,
          input.allowFormulas === true,
          this.#clock().toISOString(),
        ],
      );
      for (const spreadsheetId of connections) {
        await client.query('INSERT INTO api_key_connections (api_key_id, spreadsheet_id) VALUES ($1, $2)', [
          id,
          spreadsheetId,
        ]);
      }
    });
    const record = await this.get(id);
    if (!record) throw new Error('api key insert returned no row');
    await this.#changed();
    return { record, key };
  }

  /** One index lookup by hash; revoked keys are returned too (the caller says "revoked", not "unknown"). */
  async findByKey(key: string): Promise<ApiKeyRecord | null> {
    if (!key.startsWith(KEY_PREFIX) || key.length > MAX_KEY_LENGTH) return null;
    const hash = hashKey(key);
    return this.#byHash.get(hash, async () => {
      // A named statement: parsed and planned once per connection, as this runs on every request.
      const { rows } = await this.#pool.query<ApiKeyRow>({
        name: 'sheetport_key_by_hash',
        text: `${SELECT} WHERE k.key_hash = $1`,
        values: [hash],
      });
      return rows[0] ? toRecord(rows[0]) : null;
    });
  }

  /** Every instance drops what it holds of the keys (and this one at once, before answering). */
  async #changed(): Promise<void> {
    this.#byHash.clear();
    await this.#pool.query('SELECT pg_notify($1, $2)', [CHANNELS.registry, '']);
  }

  async setPlan(id: string, change: PlanChange): Promise<ApiKeyRecord | null> {
    const { perSecond, daily } = checkPlanChange(change);
    await this.#pool.query('UPDATE api_keys SET plan = $1, per_second = $2, daily = $3 WHERE id = $4', [
      change.plan,
      perSecond,
      daily,
      id,
    ]);
    await this.#changed();
    return this.get(id);
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    return this.#one('k.id = $1', id);
  }

  async list(): Promise<ApiKeyRecord[]> {
    const { rows } = await this.#pool.query<ApiKeyRow>(`${SELECT} ORDER BY k.created_at, k.seq`);
    return rows.map(toRecord);
  }

  async revoke(id: string): Promise<boolean> {
    const result = await this.#pool.query(
      'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
      [this.#clock().toISOString(), id],
    );
    const changed = (result.rowCount ?? 0) > 0;
    if (changed) {
      this.#lastTouch.delete(id);
      await this.#changed();
    }
    return changed;
  }

  /** Throttled per key and instance as in SQLite; a failed write (the database away) never fails a request. */
  async touch(id: string): Promise<boolean> {
    const now = this.#clock();
    if (!touchDue(this.#lastTouch, id, now.getTime())) return false;
    try {
      const result = await this.#pool.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [
        now.toISOString(),
        id,
      ]);
      return (result.rowCount ?? 0) > 0;
    } catch {
      return false;
    }
  }

  async #one(where: string, value: string): Promise<ApiKeyRecord | null> {
    const { rows } = await this.#pool.query<ApiKeyRow>(`${SELECT} WHERE ${where}`, [value]);
    return rows[0] ? toRecord(rows[0]) : null;
  }
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    plan: row.plan,
    perSecond: row.per_second,
    daily: row.daily,
    allowFormulas: row.allow_formulas,
    connections: [...row.connections].sort(),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
