/**
 * Registered spreadsheets ("connections"). Each one has a public spreadsheet id (`wb_...` for local workbooks)
 * and an opaque userKey (>= 128 random bits, URL-safe) that can stand in for it.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { AppError } from '../errors.ts';

export type SourceKind = 'workbook' | 'google';

export interface ConnectionRecord {
  id: string;
  userKey: string;
  spreadsheetId: string;
  name: string;
  sourceKind: SourceKind;
  /** Absolute file path for workbooks; the Google spreadsheet id/URL for Google sheets. */
  location: string;
  publicRead: boolean;
  /** ISO 8601. */
  createdAt: string;
}

export interface CreateConnectionInput {
  name: string;
  sourceKind: SourceKind;
  location: string;
}

interface ConnectionRow {
  id: string;
  user_key: string;
  name: string;
  source_kind: SourceKind;
  location: string;
  public_read: number;
  created_at: string;
}

const COLUMNS = 'id, user_key, name, source_kind, location, public_read, created_at';
const ID_PREFIX: Record<SourceKind, string> = { workbook: 'wb_', google: 'gs_' };

export class ConnectionStore {
  private readonly db: Database.Database;
  private readonly clock: () => Date;
  private readonly stmts: {
    insert: Database.Statement<[ConnectionRow]>;
    byId: Database.Statement<[string], ConnectionRow>;
    byUserKey: Database.Statement<[string], ConnectionRow>;
    byLocation: Database.Statement<[SourceKind, string], ConnectionRow>;
    list: Database.Statement<[], ConnectionRow>;
    remove: Database.Statement<[string, string]>;
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
      remove: db.prepare('DELETE FROM connections WHERE id = ? OR user_key = ?'),
      setPublicRead: db.prepare('UPDATE connections SET public_read = ? WHERE id = ?'),
    };
  }

  /**
   * Register a spreadsheet. Registering the same source location again returns the existing connection
   * (also when another process registers it at the same moment: the unique index decides).
   */
  create(input: CreateConnectionInput): ConnectionRecord {
    const name = input.name.trim();
    if (!name)
      throw new AppError('invalid_parameter', 'Connection name must not be empty', { field: 'name' });
    if (input.sourceKind !== 'workbook' && input.sourceKind !== 'google') {
      throw new AppError('invalid_parameter', `Unknown source kind '${String(input.sourceKind)}'`, {
        field: 'sourceKind',
      });
    }
    let location = input.location;
    if (input.sourceKind === 'workbook') {
      if (!path.isAbsolute(location)) {
        throw new AppError('invalid_parameter', `Workbook location must be an absolute path: ${location}`, {
          field: 'location',
        });
      }
      location = path.normalize(location);
    }
    if (!location)
      throw new AppError('invalid_parameter', 'Location must not be empty', { field: 'location' });

    const insert = this.db.transaction((): ConnectionRow => {
      const spreadsheetId = ID_PREFIX[input.sourceKind] + randomBytes(12).toString('base64url');
      this.stmts.insert.run({
        id: spreadsheetId,
        user_key: randomBytes(18).toString('base64url'),
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
    return toRecord(insert.immediate());
  }

  list(): ConnectionRecord[] {
    return this.stmts.list.all().map(toRecord);
  }

  getByUserKey(userKey: string): ConnectionRecord | null {
    const row = this.stmts.byUserKey.get(userKey);
    return row ? toRecord(row) : null;
  }

  getBySpreadsheetId(spreadsheetId: string): ConnectionRecord | null {
    const row = this.stmts.byId.get(spreadsheetId);
    return row ? toRecord(row) : null;
  }

  /** The connection registered for this source location (e.g. absolute workbook path), if any. */
  getByLocation(sourceKind: SourceKind, location: string): ConnectionRecord | null {
    const loc = sourceKind === 'workbook' && path.isAbsolute(location) ? path.normalize(location) : location;
    const row = this.stmts.byLocation.get(sourceKind, loc);
    return row ? toRecord(row) : null;
  }

  /** Find by spreadsheet id, or by userKey. */
  resolve(spreadsheetIdOrUserKey: string): ConnectionRecord | null {
    return this.getBySpreadsheetId(spreadsheetIdOrUserKey) ?? this.getByUserKey(spreadsheetIdOrUserKey);
  }

  /**
   * Remove by spreadsheet id or userKey; false when nothing matched. API keys limited to the removed
   * spreadsheet keep that (now dead) id, so they do not widen to "all spreadsheets".
   */
  remove(spreadsheetIdOrUserKey: string): boolean {
    return this.stmts.remove.run(spreadsheetIdOrUserKey, spreadsheetIdOrUserKey).changes > 0;
  }

  /** Allow reads without an API key. `id` is the spreadsheet id; false when there is no such connection. */
  setPublicRead(id: string, on: boolean): boolean {
    return this.stmts.setPublicRead.run(on ? 1 : 0, id).changes > 0;
  }
}

function toRecord(row: ConnectionRow): ConnectionRecord {
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
