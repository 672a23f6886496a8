/**
 * Registered spreadsheets ("connections"). Each one has a public spreadsheet id (its kind's prefix and random
 * characters) and an opaque userKey (>= 128 random bits, URL-safe) that can stand in for it. The store keeps
 * the kind's name and the location as its kind made them canonical (sources/index.ts); it knows no kind.
 */
import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { AppError } from '../errors.ts';
import type {
  ConnectionRecord,
  Connections,
  CreateConnectionInput,
  SourceKind,
} from '../repositories/connections.ts';
import { newUserKey } from './user-key.ts';

/** The connections table's row (PostgreSQL's store reads the same, `public_read` a boolean there). */
export interface ConnectionRow {
  id: string;
  user_key: string;
  name: string;
  source_kind: SourceKind;
  location: string;
  public_read: number;
  created_at: string;
}

export const CONNECTION_COLUMNS = 'id, user_key, name, source_kind, location, public_read, created_at';
const COLUMNS = CONNECTION_COLUMNS;

/** The SQLite implementation of Connections (repositories/connections.ts). */
export class ConnectionStore implements Connections {
  private readonly db: Database.Database;
  private readonly clock: () => Date;
  private readonly stmts: {
    insert: Database.Statement<[ConnectionRow]>;
    byId: Database.Statement<[string], ConnectionRow>;
    byUserKey: Database.Statement<[string], ConnectionRow>;
    byLocation: Database.Statement<[SourceKind, string], ConnectionRow>;
    list: Database.Statement<[], ConnectionRow>;
    remove: Database.Statement<[string]>;
    webhooksOf: Database.Statement<[string], string>;
    removeWebhooks: Database.Statement<[string]>;
    removeChangeLog: Database.Statement<[string]>;
    removeBaselines: Database.Statement<[string]>;
    removeCheckpoints: Database.Statement<[string]>;
    setPublicRead: Database.Statement<[number, string]>;
  };

  constructor(db: Database.Database, clock: () => Date = () => new Date()) {
    this.db = db;
    this.clock = clock;
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO connections (${COLUMNS})
         VALUES (@id, @user_key, @name, @source_kind, @location, @public_read, @created_at)
         ON CONFLICT (source_kind, location) DO NOTHING`,
      ),
      byId: db.prepare(`SELECT ${COLUMNS} FROM connections WHERE id = ?`),
      byUserKey: db.prepare(`SELECT ${COLUMNS} FROM connections WHERE user_key = ?`),
      byLocation: db.prepare(`SELECT ${COLUMNS} FROM connections WHERE source_kind = ? AND location = ?`),
      list: db.prepare(`SELECT ${COLUMNS} FROM connections ORDER BY created_at, rowid`),
      remove: db.prepare('DELETE FROM connections WHERE id = ?'),
      webhooksOf: db
        .prepare<[string], string>(
          'SELECT id FROM webhooks WHERE spreadsheet_id = ? ORDER BY created_at, rowid',
        )
        .pluck(),
      // Their deliveries and attempts go with them (foreign keys cascade).
      removeWebhooks: db.prepare('DELETE FROM webhooks WHERE spreadsheet_id = ?'),
      // What the service remembered of its content goes too: a spreadsheet connected again later (a Google
      // one keeps its id) starts from what it holds then, with no feed or baseline from before.
      removeChangeLog: db.prepare('DELETE FROM change_log WHERE spreadsheet_id = ?'),
      removeBaselines: db.prepare('DELETE FROM tab_baselines WHERE spreadsheet_id = ?'),
      removeCheckpoints: db.prepare('DELETE FROM tab_checkpoints WHERE spreadsheet_id = ?'),
      setPublicRead: db.prepare('UPDATE connections SET public_read = ? WHERE id = ?'),
    };
  }

  /**
   * Register a spreadsheet. Registering the same source location again returns the existing connection
   * (also when another process registers it at the same moment: the unique index decides).
   */
  async create(input: CreateConnectionInput): Promise<ConnectionRecord> {
    const name = input.name.trim();
    if (!name)
      throw new AppError('invalid_parameter', 'Connection name must not be empty', { field: 'name' });
    if (!input.sourceKind) {
      throw new AppError('invalid_parameter', 'Source kind must not be empty', { field: 'sourceKind' });
    }
    const location = input.location;
    if (!location)
      throw new AppError('invalid_parameter', 'Location must not be empty', { field: 'location' });

    const insert = this.db.transaction((): ConnectionRow => {
      const spreadsheetId = input.spreadsheetId ?? input.idPrefix + randomBytes(12).toString('base64url');
      this.stmts.insert.run({
        id: spreadsheetId,
        user_key: newUserKey(),
        name,
        source_kind: input.sourceKind,
        location,
        public_read: 0,
        created_at: this.clock().toISOString(),
      });
      const row = this.stmts.byLocation.get(input.sourceKind, location);
      if (!row) throw new Error('connection insert returned no row');
      return row;
    });
    return toConnectionRecord(insert.immediate());
  }

  async list(): Promise<ConnectionRecord[]> {
    return this.stmts.list.all().map(toConnectionRecord);
  }

  async getByUserKey(userKey: string): Promise<ConnectionRecord | null> {
    const row = this.stmts.byUserKey.get(userKey);
    return row ? toConnectionRecord(row) : null;
  }

  async getBySpreadsheetId(spreadsheetId: string): Promise<ConnectionRecord | null> {
    const row = this.stmts.byId.get(spreadsheetId);
    return row ? toConnectionRecord(row) : null;
  }

  /** The connection registered for this canonical source location, if any. */
  async getByLocation(sourceKind: SourceKind, location: string): Promise<ConnectionRecord | null> {
    const row = this.stmts.byLocation.get(sourceKind, location);
    return row ? toConnectionRecord(row) : null;
  }

  /** Find by spreadsheet id, or by userKey. */
  async resolve(spreadsheetIdOrUserKey: string): Promise<ConnectionRecord | null> {
    return this.#resolve(spreadsheetIdOrUserKey);
  }

  #resolve(spreadsheetIdOrUserKey: string): ConnectionRecord | null {
    const row =
      this.stmts.byId.get(spreadsheetIdOrUserKey) ?? this.stmts.byUserKey.get(spreadsheetIdOrUserKey);
    return row ? toConnectionRecord(row) : null;
  }

  /**
   * Remove by spreadsheet id or userKey; false when nothing matched. API keys limited to the removed
   * spreadsheet keep that (now dead) id, so they do not widen to "all spreadsheets". Refused (409 `conflict`)
   * while webhooks watch it, unless `force`; see `removeWithWebhooks`.
   */
  async remove(spreadsheetIdOrUserKey: string, options: { force?: boolean } = {}): Promise<boolean> {
    return (await this.removeWithWebhooks(spreadsheetIdOrUserKey, options)).removed;
  }

  /**
   * Remove a connection and say which webhooks went with it. A webhook outliving its spreadsheet would keep
   * a secret and a queue for nothing, so while any exists this throws 409 `conflict` listing them
   * (`details.webhooks`), unless `force` removes them too. One transaction: a webhook registered meanwhile by
   * another process is either listed or removed, never orphaned.
   */
  async removeWithWebhooks(
    spreadsheetIdOrUserKey: string,
    options: { force?: boolean } = {},
  ): Promise<{ removed: boolean; webhooksRemoved: string[] }> {
    const run = this.db.transaction(() => {
      const found = this.#resolve(spreadsheetIdOrUserKey);
      if (!found) return { removed: false, webhooksRemoved: [] };
      const webhooks = this.stmts.webhooksOf.all(found.spreadsheetId);
      if (webhooks.length > 0 && options.force !== true) {
        throw new AppError(
          'conflict',
          `Spreadsheet ${found.spreadsheetId} has ${webhooks.length === 1 ? 'a webhook' : `${webhooks.length} webhooks`} (${webhooks.join(', ')}); remove ${webhooks.length === 1 ? 'it' : 'them'} first, or force the removal to remove ${webhooks.length === 1 ? 'it' : 'them'} too.`,
          { webhooks },
        );
      }
      if (webhooks.length > 0) this.stmts.removeWebhooks.run(found.spreadsheetId);
      this.stmts.removeChangeLog.run(found.spreadsheetId);
      this.stmts.removeBaselines.run(found.spreadsheetId);
      this.stmts.removeCheckpoints.run(found.spreadsheetId);
      this.stmts.remove.run(found.spreadsheetId);
      return { removed: true, webhooksRemoved: webhooks };
    });
    return run.immediate();
  }

  /** Allow reads without an API key. `id` is the spreadsheet id; false when there is no such connection. */
  async setPublicRead(id: string, on: boolean): Promise<boolean> {
    return this.stmts.setPublicRead.run(on ? 1 : 0, id).changes > 0;
  }
}

/** The one mapping of a connections row to its record, for both stores. */
export function toConnectionRecord(row: ConnectionRow): ConnectionRecord {
  return {
    id: row.id,
    userKey: row.user_key,
    spreadsheetId: row.id,
    name: row.name,
    sourceKind: row.source_kind,
    location: row.location,
    publicRead: row.public_read === 1,
    createdAt: row.created_at,
  };
}
