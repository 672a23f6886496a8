/**
 * Connections in PostgreSQL: the same rules as store/connections.ts (random opaque ids, the same location returns
 * the existing connection, removal refused while webhooks watch unless forced), across instances.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';
import type {
  ConnectionRecord,
  Connections,
  CreateConnectionInput,
  SourceKind,
} from '../repositories/connections.ts';
import { CONNECTION_COLUMNS, type ConnectionRow, toConnectionRecord } from '../store/connections.ts';
import { newUserKey } from '../store/user-key.ts';
import { CHANNELS } from './channels.ts';
import type { PgListener } from './listener.ts';
import { type Pool, type Queryable, tx } from './pool.ts';
import { RegistryCache } from './registry-cache.ts';

/** SQLite's row (store/connections.ts), `public_read` a boolean. */
type PgConnectionRow = Omit<ConnectionRow, 'public_read'> & { public_read: boolean };

const COLUMNS = CONNECTION_COLUMNS;

export interface PgConnectionsOptions {
  clock?: () => Date;
  /** Hears other instances' changes, so the lookups every request makes can be held (registry-cache.ts). */
  listener?: PgListener;
  /** Called once a removal took webhooks with it (the webhooks' in-memory view reads again). */
  onWebhooksRemoved?: () => Promise<void>;
}

export class PgConnections implements Connections {
  readonly #pool: Pool;
  readonly #clock: () => Date;
  readonly #onWebhooksRemoved: () => Promise<void>;
  /** resolve / getByUserKey / getBySpreadsheetId answers, by what was asked (a second at most). */
  readonly #lookups: RegistryCache<ConnectionRecord | null>;

  constructor(pool: Pool, options: PgConnectionsOptions = {}) {
    this.#pool = pool;
    this.#lookups = new RegistryCache(options.listener ?? null);
    this.#clock = options.clock ?? (() => new Date());
    this.#onWebhooksRemoved = options.onWebhooksRemoved ?? (async () => {});
  }

  /** Register a spreadsheet; the unique (kind, location) index decides between instances registering it at once. */
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
    const spreadsheetId = input.spreadsheetId ?? input.idPrefix + randomBytes(12).toString('base64url');
    await this.#pool.query(
      `INSERT INTO connections (id, user_key, name, source_kind, location, public_read, created_at)
       VALUES ($1, $2, $3, $4, $5, false, $6)
       ON CONFLICT (source_kind, location) DO NOTHING`,
      [spreadsheetId, newUserKey(), name, input.sourceKind, location, this.#clock().toISOString()],
    );
    const found = await this.getByLocation(input.sourceKind, location);
    if (!found) throw new Error('connection insert returned no row');
    await this.#changed();
    return found;
  }

  async list(): Promise<ConnectionRecord[]> {
    const { rows } = await this.#pool.query<PgConnectionRow>(
      `SELECT ${COLUMNS} FROM connections ORDER BY created_at, seq`,
    );
    return rows.map(toRecord);
  }

  async getByUserKey(userKey: string): Promise<ConnectionRecord | null> {
    return this.#lookups.get(`u:${userKey}`, () => one(this.#pool, 'user_key = $1', [userKey]));
  }

  async getBySpreadsheetId(spreadsheetId: string): Promise<ConnectionRecord | null> {
    return this.#lookups.get(`s:${spreadsheetId}`, () => one(this.#pool, 'id = $1', [spreadsheetId]));
  }

  async getByLocation(sourceKind: SourceKind, location: string): Promise<ConnectionRecord | null> {
    return one(this.#pool, 'source_kind = $1 AND location = $2', [sourceKind, location]);
  }

  async resolve(spreadsheetIdOrUserKey: string): Promise<ConnectionRecord | null> {
    return this.#lookups.get(`r:${spreadsheetIdOrUserKey}`, () =>
      resolveIn(this.#pool, spreadsheetIdOrUserKey, ''),
    );
  }

  /** Every instance drops what it holds of the connections (and this one at once, before answering). */
  async #changed(): Promise<void> {
    this.#lookups.clear();
    await this.#pool.query('SELECT pg_notify($1, $2)', [CHANNELS.registry, '']);
  }

  async remove(spreadsheetIdOrUserKey: string, options: { force?: boolean } = {}): Promise<boolean> {
    return (await this.removeWithWebhooks(spreadsheetIdOrUserKey, options)).removed;
  }

  /**
   * As store/connections.ts: one transaction, the connection's row locked first, so a webhook registered
   * meanwhile by another instance is either listed or removed, never orphaned.
   */
  async removeWithWebhooks(
    spreadsheetIdOrUserKey: string,
    options: { force?: boolean } = {},
  ): Promise<{ removed: boolean; webhooksRemoved: string[] }> {
    const outcome = await tx(this.#pool, async (client) => {
      const found = await resolveIn(client, spreadsheetIdOrUserKey, ' FOR UPDATE');
      if (!found) return { removed: false, webhooksRemoved: [] };
      const id = found.spreadsheetId;
      const { rows } = await client.query<{ id: string }>(
        'SELECT id FROM webhooks WHERE spreadsheet_id = $1 ORDER BY created_at, seq FOR UPDATE',
        [id],
      );
      const webhooks = rows.map((r) => r.id);
      if (webhooks.length > 0 && options.force !== true) {
        const them = webhooks.length === 1 ? 'it' : 'them';
        throw new AppError(
          'conflict',
          `Spreadsheet ${id} has ${webhooks.length === 1 ? 'a webhook' : `${webhooks.length} webhooks`} (${webhooks.join(', ')}); remove ${them} first, or force the removal to remove ${them} too.`,
          { webhooks },
        );
      }
      if (webhooks.length > 0) await client.query('DELETE FROM webhooks WHERE spreadsheet_id = $1', [id]);
      // Its change log, baselines and recorded version go with it (migration 2's trigger).
      await client.query('DELETE FROM connections WHERE id = $1', [id]);
      // Every instance drops what it holds of the registry as this commits.
      await client.query('SELECT pg_notify($1, $2)', [CHANNELS.registry, '']);
      return { removed: true, webhooksRemoved: webhooks };
    });
    if (outcome.removed) this.#lookups.clear();
    if (outcome.webhooksRemoved.length > 0) await this.#onWebhooksRemoved();
    return outcome;
  }

  async setPublicRead(spreadsheetId: string, on: boolean): Promise<boolean> {
    const result = await this.#pool.query('UPDATE connections SET public_read = $1 WHERE id = $2', [
      on,
      spreadsheetId,
    ]);
    await this.#changed();
    return (result.rowCount ?? 0) > 0;
  }
}

async function one(db: Queryable, where: string, params: unknown[]): Promise<ConnectionRecord | null> {
  const { rows } = await db.query<PgConnectionRow>(
    `SELECT ${COLUMNS} FROM connections WHERE ${where}`,
    params,
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** By spreadsheet id first, then by userKey (the two never collide: ids carry a kind's prefix). */
async function resolveIn(db: Queryable, idOrUserKey: string, lock: string): Promise<ConnectionRecord | null> {
  return (
    (await one(db, `id = $1${lock}`, [idOrUserKey])) ?? (await one(db, `user_key = $1${lock}`, [idOrUserKey]))
  );
}

function toRecord(row: PgConnectionRow): ConnectionRecord {
  return toConnectionRecord({ ...row, public_read: row.public_read ? 1 : 0 });
}
