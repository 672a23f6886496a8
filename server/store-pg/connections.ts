/**
 * The connections table in PostgreSQL: the statements of repositories/rules/connections.ts. Lookups by id or
 * userKey outside a transaction are held in the registry's cache (registry.ts); a removal locks the connection's
 * row and its webhooks' rows, so a webhook or key made meanwhile on another instance waits for it or goes first.
 */
import type { SourceKind } from '../repositories/connections.ts';
import {
  CONNECTION_COLUMNS,
  type ConnectionRow,
  type ConnectionStatements,
} from '../repositories/rules/connections.ts';
import type { PgRegistry } from './registry.ts';
import { RegistryStatements } from './registry-statements.ts';
import type { Bind } from './transactional.ts';

export function pgConnectionStatements(registry: PgRegistry): Bind<ConnectionStatements> {
  return (db, after) => new PgConnectionStatements(db, after, registry);
}

class PgConnectionStatements extends RegistryStatements implements ConnectionStatements {
  async insert(row: ConnectionRow): Promise<void> {
    await this.db.query(
      `INSERT INTO connections (${CONNECTION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (source_kind, location) DO NOTHING`,
      [
        row.id,
        row.user_key,
        row.name,
        row.source_kind,
        row.location,
        row.public_read === true,
        row.created_at,
      ],
    );
  }

  byId(spreadsheetId: string, lock = false): Promise<ConnectionRow | undefined> {
    if (lock) return this.#one('id = $1 FOR UPDATE', [spreadsheetId]);
    return this.registry.connections.get(`i:${spreadsheetId}`, () => this.#one('id = $1', [spreadsheetId]));
  }

  byUserKey(userKey: string, lock = false): Promise<ConnectionRow | undefined> {
    if (lock) return this.#one('user_key = $1 FOR UPDATE', [userKey]);
    return this.registry.connections.get(`u:${userKey}`, () => this.#one('user_key = $1', [userKey]));
  }

  byLocation(sourceKind: SourceKind, location: string): Promise<ConnectionRow | undefined> {
    return this.#one('source_kind = $1 AND location = $2', [sourceKind, location]);
  }

  async list(): Promise<ConnectionRow[]> {
    const { rows } = await this.db.query<ConnectionRow>(
      `SELECT ${CONNECTION_COLUMNS} FROM connections ORDER BY created_at, seq`,
    );
    return rows;
  }

  async webhooksOf(spreadsheetId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      'SELECT id FROM webhooks WHERE spreadsheet_id = $1 ORDER BY created_at, seq FOR UPDATE',
      [spreadsheetId],
    );
    return rows.map((r) => r.id);
  }

  async removeWebhooksOf(spreadsheetId: string): Promise<void> {
    await this.db.query('DELETE FROM webhooks WHERE spreadsheet_id = $1', [spreadsheetId]);
  }

  /** Its change log, baselines and recorded version go with it (migration 2's trigger). */
  async remove(spreadsheetId: string): Promise<void> {
    await this.db.query('DELETE FROM connections WHERE id = $1', [spreadsheetId]);
  }

  async setPublicRead(spreadsheetId: string, on: boolean): Promise<boolean> {
    const result = await this.db.query('UPDATE connections SET public_read = $1 WHERE id = $2', [
      on,
      spreadsheetId,
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  registryChanged(): Promise<void> {
    return this.registry.changed(this.db, this.after);
  }

  async #one(where: string, params: unknown[]): Promise<ConnectionRow | undefined> {
    const { rows } = await this.db.query<ConnectionRow>(
      `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE ${where}`,
      params,
    );
    return rows[0];
  }
}
