/**
 * The API keys tables in PostgreSQL: the statements of repositories/rules/keys.ts. A lookup by hash is kept in
 * the registry's cache (registry.ts) for a second at most, dropped on any instance's change of the registry, so
 * a revocation or a plan change holds on every instance within milliseconds as a rule and a second at worst.
 */
import type { KeyPlan } from '../repositories/keys.ts';
import type { KeyRow, KeyStatements, NewKeyRow } from '../repositories/rules/keys.ts';
import type { PgRegistry } from './registry.ts';
import { RegistryStatements } from './registry-statements.ts';
import type { Bind } from './transactional.ts';

const SELECT = `
  SELECT k.id, k.name, k.prefix, k.scope, k.plan, k.per_second, k.daily, k.allow_formulas,
         k.created_at, k.last_used_at, k.revoked_at,
         ARRAY(SELECT c.spreadsheet_id FROM api_key_connections c WHERE c.api_key_id = k.id) AS connections
  FROM api_keys k`;

export function pgKeyStatements(registry: PgRegistry): Bind<KeyStatements> {
  return (db, after) => new PgKeyStatements(db, after, registry);
}

class PgKeyStatements extends RegistryStatements implements KeyStatements {
  /** Locked for share: a removal of the spreadsheet on another instance waits for this key, or goes first. */
  async connectionExists(spreadsheetId: string): Promise<boolean> {
    const found = await this.db.query('SELECT 1 FROM connections WHERE id = $1 FOR SHARE', [spreadsheetId]);
    return (found.rowCount ?? 0) > 0;
  }

  async insert(row: NewKeyRow, connections: readonly string[]): Promise<void> {
    await this.db.query(
      `INSERT INTO api_keys (id, key_hash, prefix, name, scope, plan, per_second, daily, allow_formulas, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        row.id,
        row.key_hash,
        row.prefix,
        row.name,
        row.scope,
        row.plan,
        row.per_second,
        row.daily,
        row.allow_formulas === true,
        row.created_at,
      ],
    );
    await this.db.query(
      'INSERT INTO api_key_connections (api_key_id, spreadsheet_id) SELECT $1, unnest($2::text[])',
      [row.id, connections],
    );
  }

  byHash(keyHash: string): Promise<KeyRow | undefined> {
    return this.registry.keys.get(keyHash, async () => {
      // A named statement: parsed and planned once per connection, as this runs on every request.
      const { rows } = await this.db.query<KeyRow>({
        name: 'sheetport_key_by_hash',
        text: `${SELECT} WHERE k.key_hash = $1`,
        values: [keyHash],
      });
      return rows[0];
    });
  }

  async byId(id: string): Promise<KeyRow | undefined> {
    const { rows } = await this.db.query<KeyRow>(`${SELECT} WHERE k.id = $1`, [id]);
    return rows[0];
  }

  async list(): Promise<KeyRow[]> {
    const { rows } = await this.db.query<KeyRow>(`${SELECT} ORDER BY k.created_at, k.seq`);
    return rows;
  }

  async revoke(id: string, at: string): Promise<boolean> {
    const result = await this.db.query(
      'UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
      [at, id],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async touch(id: string, at: string): Promise<boolean> {
    const result = await this.db.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [at, id]);
    return (result.rowCount ?? 0) > 0;
  }

  async setPlan(id: string, plan: KeyPlan, perSecond: number | null, daily: number | null): Promise<void> {
    await this.db.query('UPDATE api_keys SET plan = $1, per_second = $2, daily = $3 WHERE id = $4', [
      plan,
      perSecond,
      daily,
      id,
    ]);
  }

  registryChanged(): Promise<void> {
    return this.registry.changed(this.db, this.after);
  }
}
