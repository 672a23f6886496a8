/**
 * Connections, once for both databases: random opaque ids (the kind's prefix and 96 random bits; a userKey of 144
 * bits that never starts with `-`, so it pastes as an argument), the same location registered again returns the
 * existing connection, and "a connection with webhooks is removed only after them". Each database implements
 * `ConnectionStatements` in its SQL (store/connections.ts, store-pg/connections.ts).
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import type { ConnectionRecord, Connections, CreateConnectionInput, SourceKind } from '../connections.ts';
import { type Answer, type Rule, settled, type Transactional } from './transactional.ts';

/** The connections table's row (`public_read` 0 or 1 in SQLite, a boolean in PostgreSQL). */
export interface ConnectionRow {
  id: string;
  user_key: string;
  name: string;
  source_kind: SourceKind;
  location: string;
  public_read: number | boolean;
  created_at: string;
}

/** `ConnectionRow`'s columns, as both databases select them. */
export const CONNECTION_COLUMNS = 'id, user_key, name, source_kind, location, public_read, created_at';

export interface ConnectionStatements {
  /** Inserts the row unless a connection of its kind and location exists (the unique index decides). */
  insert(row: ConnectionRow): Answer<void>;
  /** `lock`: held against other writers until the transaction ends (a removal's). */
  byId(spreadsheetId: string, lock?: boolean): Answer<ConnectionRow | undefined>;
  byUserKey(userKey: string, lock?: boolean): Answer<ConnectionRow | undefined>;
  byLocation(sourceKind: SourceKind, location: string): Answer<ConnectionRow | undefined>;
  /** In creation order: `created_at`, then the database's insertion order. */
  list(): Answer<ConnectionRow[]>;
  /** The ids of the webhooks on a spreadsheet, in creation order, held until the transaction ends. */
  webhooksOf(spreadsheetId: string): Answer<string[]>;
  removeWebhooksOf(spreadsheetId: string): Answer<void>;
  /** The connection, with what was recorded of its spreadsheet (change log, baselines). */
  remove(spreadsheetId: string): Answer<void>;
  setPublicRead(spreadsheetId: string, on: boolean): Answer<boolean>;
  /** Whoever keeps what it read of the registry (keys, connections, webhooks) reads it again once this commits. */
  registryChanged(): Answer<void>;
}

interface Removal {
  removed: boolean;
  webhooksRemoved: string[];
}

export class ConnectionRepository implements Connections {
  readonly #db: Transactional<ConnectionStatements>;
  readonly #clock: () => Date;

  constructor(db: Transactional<ConnectionStatements>, clock: () => Date = () => new Date()) {
    this.#db = db;
    this.#clock = clock;
  }

  /** Registering the same location again, also from another process at the same moment, returns the existing
   * connection: the unique index decides. */
  async create(input: CreateConnectionInput): Promise<ConnectionRecord> {
    const row: ConnectionRow = {
      id: input.spreadsheetId ?? input.idPrefix + randomBytes(12).toString('base64url'),
      user_key: newUserKey(),
      ...checked(input),
      public_read: false,
      created_at: this.#clock().toISOString(),
    };
    return this.#db.transaction(function* (s) {
      yield* settled(s.insert(row));
      const stored = yield* settled(s.byLocation(row.source_kind, row.location));
      if (!stored) throw new Error('connection insert returned no row');
      yield* settled(s.registryChanged());
      return connectionRecord(stored);
    });
  }

  async list(): Promise<ConnectionRecord[]> {
    return (await this.#db.statements.list()).map(connectionRecord);
  }

  async getByUserKey(userKey: string): Promise<ConnectionRecord | null> {
    return recordOf(await this.#db.statements.byUserKey(userKey));
  }

  async getBySpreadsheetId(spreadsheetId: string): Promise<ConnectionRecord | null> {
    return recordOf(await this.#db.statements.byId(spreadsheetId));
  }

  async getByLocation(sourceKind: SourceKind, location: string): Promise<ConnectionRecord | null> {
    return recordOf(await this.#db.statements.byLocation(sourceKind, location));
  }

  async resolve(spreadsheetIdOrUserKey: string): Promise<ConnectionRecord | null> {
    return recordOf(await this.#db.run((s) => resolving(s, spreadsheetIdOrUserKey)));
  }

  /**
   * API keys limited to the removed spreadsheet keep that (now dead) id, so they do not widen to "all
   * spreadsheets". Refused (409 `conflict`) while webhooks watch it, unless `force`; see `removeWithWebhooks`.
   */
  async remove(spreadsheetIdOrUserKey: string, options: { force?: boolean } = {}): Promise<boolean> {
    return (await this.removeWithWebhooks(spreadsheetIdOrUserKey, options)).removed;
  }

  /**
   * A webhook outliving its spreadsheet would keep a secret and a queue for nothing, so while any exists this
   * throws 409 `conflict` listing them (`details.webhooks`), unless `force` removes them too. One transaction, the
   * connection held first: a webhook registered meanwhile elsewhere is either listed or removed, never orphaned.
   */
  async removeWithWebhooks(
    spreadsheetIdOrUserKey: string,
    options: { force?: boolean } = {},
  ): Promise<Removal> {
    const force = options.force === true;
    return this.#db.transaction((s) => removing(s, spreadsheetIdOrUserKey, force));
  }

  async setPublicRead(spreadsheetId: string, on: boolean): Promise<boolean> {
    return this.#db.transaction(function* (s) {
      const changed = yield* settled(s.setPublicRead(spreadsheetId, on));
      if (changed) yield* settled(s.registryChanged());
      return changed;
    });
  }
}

/** By spreadsheet id, then by userKey (the two never collide: ids carry a kind's prefix). */
function* resolving(
  s: ConnectionStatements,
  spreadsheetIdOrUserKey: string,
  lock = false,
): Rule<ConnectionRow | undefined> {
  const byId = yield* settled(s.byId(spreadsheetIdOrUserKey, lock));
  return byId ?? (yield* settled(s.byUserKey(spreadsheetIdOrUserKey, lock)));
}

function* removing(s: ConnectionStatements, spreadsheetIdOrUserKey: string, force: boolean): Rule<Removal> {
  const found = yield* resolving(s, spreadsheetIdOrUserKey, true);
  if (!found) return { removed: false, webhooksRemoved: [] };
  const webhooks = yield* settled(s.webhooksOf(found.id));
  if (webhooks.length > 0 && !force) throw webhooksWatch(found.id, webhooks);
  // Their deliveries and attempts go with them.
  if (webhooks.length > 0) yield* settled(s.removeWebhooksOf(found.id));
  yield* settled(s.remove(found.id));
  yield* settled(s.registryChanged());
  return { removed: true, webhooksRemoved: webhooks };
}

/** The 409 of a removal refused while webhooks watch the spreadsheet. */
function webhooksWatch(spreadsheetId: string, webhooks: string[]): AppError {
  const one = webhooks.length === 1;
  const them = one ? 'it' : 'them';
  return new AppError(
    'conflict',
    `Spreadsheet ${spreadsheetId} has ${one ? 'a webhook' : `${webhooks.length} webhooks`} (${webhooks.join(', ')}); remove ${them} first, or force the removal to remove ${them} too.`,
    { webhooks },
  );
}

function checked(input: CreateConnectionInput): Pick<ConnectionRow, 'name' | 'source_kind' | 'location'> {
  const name = input.name.trim();
  if (!name) throw new AppError('invalid_parameter', 'Connection name must not be empty', { field: 'name' });
  if (!input.sourceKind) {
    throw new AppError('invalid_parameter', 'Source kind must not be empty', { field: 'sourceKind' });
  }
  if (!input.location)
    throw new AppError('invalid_parameter', 'Location must not be empty', { field: 'location' });
  return { name, source_kind: input.sourceKind, location: input.location };
}

/** A userKey: 144 random bits, URL-safe, never starting with `-` (it would read as an option on a command line). */
function newUserKey(): string {
  for (;;) {
    const key = randomBytes(18).toString('base64url');
    if (!key.startsWith('-')) return key;
  }
}

function recordOf(row: ConnectionRow | undefined): ConnectionRecord | null {
  return row ? connectionRecord(row) : null;
}

/** The one mapping of a connections row to its record. */
export function connectionRecord(row: ConnectionRow): ConnectionRecord {
  return {
    userKey: row.user_key,
    spreadsheetId: row.id,
    name: row.name,
    sourceKind: row.source_kind,
    location: row.location,
    publicRead: row.public_read === true || row.public_read === 1,
    createdAt: row.created_at,
  };
}
