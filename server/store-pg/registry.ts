/**
 * What an instance keeps of the registry (the records every request reads and few change): connection and key
 * lookups (registry-cache.ts, a second at most) and which spreadsheets have webhooks (webhooks-watched.ts). Any
 * instance's change sends NOTIFY sheetport_registry, which drops the caches everywhere as it commits; the
 * instance that made it also drops its own and reads the watched set again before it answers.
 */
import type { ConnectionRow } from '../repositories/rules/connections.ts';
import type { KeyRow } from '../repositories/rules/keys.ts';
import { CHANNELS } from './channels.ts';
import type { PgListener } from './listener.ts';
import type { Queryable } from './pool.ts';
import { RegistryCache } from './registry-cache.ts';
import type { AfterCommit } from './transactional.ts';

export class PgRegistry {
  /** Connection rows by what was asked (`i:` a spreadsheet id, `u:` a userKey). */
  readonly connections: RegistryCache<ConnectionRow | undefined>;
  /** Key rows by key hash. */
  readonly keys: RegistryCache<KeyRow | undefined>;
  readonly #readWatched: () => Promise<void>;

  constructor(listener: PgListener | null, readWatched: () => Promise<void>) {
    this.connections = new RegistryCache(listener);
    this.keys = new RegistryCache(listener);
    this.#readWatched = readWatched;
  }

  /** A statement of `db` changed the registry: every instance hears it once it commits (this one at once). */
  async changed(db: Queryable, after: AfterCommit): Promise<void> {
    await db.query('SELECT pg_notify($1, $2)', [CHANNELS.registry, '']);
    await after(async () => {
      this.connections.clear();
      this.keys.clear();
      await this.#readWatched();
    });
  }
}
