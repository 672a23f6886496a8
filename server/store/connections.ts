/**
 * The connections table in SQLite: the statements of repositories/rules/connections.ts, whose rules they serve.
 * Within one IMMEDIATE transaction nothing else writes, so no statement here needs a lock of its own.
 */
import type Database from 'better-sqlite3';
import type { SourceKind } from '../repositories/connections.ts';
import {
  CONNECTION_COLUMNS,
  type ConnectionRow,
  type ConnectionStatements,
} from '../repositories/rules/connections.ts';
import type { SqliteRegistry } from './registry.ts';

export class SqliteConnectionStatements implements ConnectionStatements {
  readonly #insert: Database.Statement<[ConnectionRow]>;
  readonly #byId: Database.Statement<[string], ConnectionRow>;
  readonly #byUserKey: Database.Statement<[string], ConnectionRow>;
  readonly #byLocation: Database.Statement<[SourceKind, string], ConnectionRow>;
  readonly #list: Database.Statement<[], ConnectionRow>;
  readonly #webhooksOf: Database.Statement<[string], string>;
  readonly #removeWebhooks: Database.Statement<[string]>;
  readonly #remove: Database.Statement<[string]>[];
  readonly #setPublicRead: Database.Statement<[number, string]>;
  readonly #registry: SqliteRegistry;

  constructor(db: Database.Database, registry: SqliteRegistry) {
    this.#registry = registry;
    this.#insert = db.prepare(
      `INSERT INTO connections (${CONNECTION_COLUMNS})
       VALUES (@id, @user_key, @name, @source_kind, @location, @public_read, @created_at)
       ON CONFLICT (source_kind, location) DO NOTHING`,
    );
    this.#byId = db.prepare(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE id = ?`);
    this.#byUserKey = db.prepare(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE user_key = ?`);
    this.#byLocation = db.prepare(
      `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE source_kind = ? AND location = ?`,
    );
    this.#list = db.prepare(`SELECT ${CONNECTION_COLUMNS} FROM connections ORDER BY created_at, rowid`);
    this.#webhooksOf = db
      .prepare<[string], string>(
        'SELECT id FROM webhooks WHERE spreadsheet_id = ? ORDER BY created_at, rowid',
      )
      .pluck();
    // Their deliveries and attempts go with them (foreign keys cascade).
    this.#removeWebhooks = db.prepare('DELETE FROM webhooks WHERE spreadsheet_id = ?');
    // What the service remembered of its content goes too: a spreadsheet connected again later (a Google one
    // keeps its id) starts from what it holds then, with no feed or baseline from before.
    this.#remove = [
      'DELETE FROM change_log WHERE spreadsheet_id = ?',
      'DELETE FROM tab_baselines WHERE spreadsheet_id = ?',
      'DELETE FROM tab_checkpoints WHERE spreadsheet_id = ?',
      'DELETE FROM connections WHERE id = ?',
    ].map((sql) => db.prepare<[string]>(sql));
    this.#setPublicRead = db.prepare('UPDATE connections SET public_read = ? WHERE id = ?');
  }

  insert(row: ConnectionRow): void {
    this.#insert.run({ ...row, public_read: row.public_read ? 1 : 0 });
  }

  byId(spreadsheetId: string): ConnectionRow | undefined {
    return this.#registry.connection(`i:${spreadsheetId}`, () => this.#byId.get(spreadsheetId));
  }

  byUserKey(userKey: string): ConnectionRow | undefined {
    return this.#registry.connection(`u:${userKey}`, () => this.#byUserKey.get(userKey));
  }

  byLocation(sourceKind: SourceKind, location: string): ConnectionRow | undefined {
    return this.#byLocation.get(sourceKind, location);
  }

  list(): ConnectionRow[] {
    return this.#list.all();
  }

  webhooksOf(spreadsheetId: string): string[] {
    return this.#webhooksOf.all(spreadsheetId);
  }

  removeWebhooksOf(spreadsheetId: string): void {
    this.#removeWebhooks.run(spreadsheetId);
  }

  remove(spreadsheetId: string): void {
    for (const statement of this.#remove) statement.run(spreadsheetId);
  }

  setPublicRead(spreadsheetId: string, on: boolean): boolean {
    return this.#setPublicRead.run(on ? 1 : 0, spreadsheetId).changes > 0;
  }

  registryChanged(): void {
    this.#registry.changed();
  }
}
