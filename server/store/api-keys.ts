/**
 * The API keys tables in SQLite (api_keys, and api_key_connections for allow-lists): the statements of
 * repositories/rules/keys.ts. Prepared once: byHash and touch run on every request.
 */
import type Database from 'better-sqlite3';
import type { KeyPlan } from '../repositories/keys.ts';
import type { KeyRow, KeyStatements, NewKeyRow } from '../repositories/rules/keys.ts';
import type { SqliteRegistry } from './registry.ts';

/** A key's row as SQLite answers it: the allow-list as a JSON array. */
type StoredKeyRow = Omit<KeyRow, 'connections'> & { connections: string };

const SELECT = `
  SELECT k.id, k.name, k.prefix, k.scope, k.plan, k.per_second, k.daily, k.allow_formulas,
         k.created_at, k.last_used_at, k.revoked_at,
         (SELECT json_group_array(c.spreadsheet_id) FROM api_key_connections c WHERE c.api_key_id = k.id)
           AS connections
  FROM api_keys k`;

export class SqliteKeyStatements implements KeyStatements {
  readonly #insert: Database.Statement<[NewKeyRow]>;
  readonly #insertConnection: Database.Statement<[string, string]>;
  readonly #connectionExists: Database.Statement<[string], number>;
  readonly #byHash: Database.Statement<[string], StoredKeyRow>;
  readonly #byId: Database.Statement<[string], StoredKeyRow>;
  readonly #list: Database.Statement<[], StoredKeyRow>;
  readonly #revoke: Database.Statement<[string, string]>;
  readonly #touch: Database.Statement<[string, string]>;
  readonly #setPlan: Database.Statement<[KeyPlan, number | null, number | null, string]>;

  readonly #registry: SqliteRegistry;

  constructor(db: Database.Database, registry: SqliteRegistry) {
    this.#registry = registry;
    this.#insert = db.prepare(
      `INSERT INTO api_keys (id, key_hash, prefix, name, scope, plan, per_second, daily, allow_formulas, created_at)
       VALUES (@id, @key_hash, @prefix, @name, @scope, @plan, @per_second, @daily, @allow_formulas, @created_at)`,
    );
    this.#insertConnection = db.prepare(
      'INSERT OR IGNORE INTO api_key_connections (api_key_id, spreadsheet_id) VALUES (?, ?)',
    );
    this.#connectionExists = db.prepare<[string], number>('SELECT 1 FROM connections WHERE id = ?').pluck();
    this.#byHash = db.prepare(`${SELECT} WHERE k.key_hash = ?`);
    this.#byId = db.prepare(`${SELECT} WHERE k.id = ?`);
    this.#list = db.prepare(`${SELECT} ORDER BY k.created_at, k.rowid`);
    this.#revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.#touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    this.#setPlan = db.prepare('UPDATE api_keys SET plan = ?, per_second = ?, daily = ? WHERE id = ?');
  }

  /** The IMMEDIATE transaction already keeps a removal out. */
  connectionExists(spreadsheetId: string): boolean {
    return this.#connectionExists.get(spreadsheetId) !== undefined;
  }

  insert(row: NewKeyRow, connections: readonly string[]): void {
    this.#insert.run({ ...row, allow_formulas: row.allow_formulas ? 1 : 0 });
    for (const spreadsheetId of connections) this.#insertConnection.run(row.id, spreadsheetId);
  }

  byHash(keyHash: string): KeyRow | undefined {
    return this.#registry.key(keyHash, () => keyRow(this.#byHash.get(keyHash)));
  }

  byId(id: string): KeyRow | undefined {
    return keyRow(this.#byId.get(id));
  }

  list(): KeyRow[] {
    return this.#list.all().map((row) => keyRow(row)!);
  }

  revoke(id: string, at: string): boolean {
    return this.#revoke.run(at, id).changes > 0;
  }

  touch(id: string, at: string): boolean {
    return this.#touch.run(at, id).changes > 0;
  }

  setPlan(id: string, plan: KeyPlan, perSecond: number | null, daily: number | null): void {
    this.#setPlan.run(plan, perSecond, daily, id);
  }

  registryChanged(): void {
    this.#registry.changed();
  }
}

function keyRow(row: StoredKeyRow | undefined): KeyRow | undefined {
  return row && { ...row, connections: JSON.parse(row.connections) as string[] };
}
