/**
 * What an instance keeps of the registry (the records every request reads and few change): connection and key
 * lookups (registry-cache.ts, a second at most) and which spreadsheets have webhooks (webhooks-watched.ts). Any
 * instance's change sends NOTIFY sheetport_registry, which drops the caches everywhere as it commits; the
 * instance that made it also drops its own and reads the watched set again before it answers.
 */

import { RegistryCache } from '../repositories/registry-cache.ts';
import type { ConnectionRow } from '../repositories/rules/connections.ts';
import type { KeyRow } from '../repositories/rules/keys.ts';
import { CHANNELS } from './channels.ts';
import type { PgListener } from './listener.ts';
import type { Queryable } from './pool.ts';
import type { AfterCommit } from './transactional.ts';

export class PgRegistry {
  /** Connection rows by what was asked (`i:` a spreadsheet id, `u:` a userKey). */
  readonly connections = new RegistryCache<Promise<ConnectionRow | undefined>>();
  /** Key rows by key hash. */
  readonly keys = new RegistryCache<Promise<KeyRow | undefined>>();
  readonly #readWatched: () => Promise<void>;

  constructor(listener: PgListener | null, readWatched: () => Promise<void>) {
    // Another instance's change, or the listener reconnected (a change may have gone unheard).
    listener?.on(CHANNELS.registry, () => this.#drop());
    this.#readWatched = readWatched;
  }

  /** A statement of `db` changed the registry: every instance hears it once it commits (this one at once). */
  async changed(db: Queryable, after: AfterCommit): Promise<void> {
    await db.query('SELECT pg_notify($1, $2)', [CHANNELS.registry, '']);
    await after(async () => {
      this.#drop();
      await this.#readWatched();
    });
  }

  #drop(): void {
    this.connections.clear();
    this.keys.clear();
  }
}
