/**
 * What a process keeps of SQLite's registry (the key and connection rows every request reads,
 * repositories/registry-cache.ts). Two things drop it: a change this connection makes (the storage rules'
 * `registryChanged`), and a commit by any other connection to the file (the CLI's process, a second instance),
 * seen from SQLite's `data_version`, which is read before a held row is served. So a key revoked from the CLI is
 * refused by the next request, as when every request read the file. One read serves a turn of the event loop
 * (lib/turn-mark.ts: the requests read in one turn arrived together, and a request's key and connection are
 * looked up in the same turn), unless a handle of this process changed the registry meanwhile.
 *
 * Nothing is kept while a transaction is open: a row read there may be rolled back.
 */
import type Database from 'better-sqlite3';
import { TurnMark } from '../lib/turn-mark.ts';
import { RegistryCache } from '../repositories/registry-cache.ts';
import type { ConnectionRow } from '../repositories/rules/connections.ts';
import type { KeyRow } from '../repositories/rules/keys.ts';

/** Registry changes made by any handle of this process: another handle's turn mark does not cover them. */
let changesHere = 0;

export class SqliteRegistry {
  readonly #db: Database.Database;
  readonly #dataVersion: Database.Statement<[], number>;
  #seenVersion: number;
  /** Connection rows by what was asked (`i:` a spreadsheet id, `u:` a userKey). */
  readonly #connections = new RegistryCache<ConnectionRow | undefined>();
  /** Key rows by key hash. */
  readonly #keys = new RegistryCache<KeyRow | undefined>();
  /** `data_version` was read in this turn, when this process had made `#changesSeen` changes. */
  readonly #checked = new TurnMark();
  #changesSeen = changesHere;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.#seenVersion = this.#dataVersion.get()!;
  }

  connection(asked: string, load: () => ConnectionRow | undefined): ConnectionRow | undefined {
    return this.#current() ? this.#connections.get(asked, load) : load();
  }

  key(keyHash: string, load: () => KeyRow | undefined): KeyRow | undefined {
    return this.#current() ? this.#keys.get(keyHash, load) : load();
  }

  /** This connection changed the registry (inside its transaction: nothing is kept until it ends). */
  changed(): void {
    changesHere++;
    this.#drop();
  }

  #drop(): void {
    this.#connections.clear();
    this.#keys.clear();
  }

  /** Whether the caches may serve: no transaction open, and what another connection committed is dropped. */
  #current(): boolean {
    if (this.#db.inTransaction) return false;
    if (this.#checked.held && this.#changesSeen === changesHere) return true;
    const version = this.#dataVersion.get()!;
    if (version !== this.#seenVersion) {
      this.#seenVersion = version;
      this.#drop();
    }
    this.#changesSeen = changesHere;
    this.#checked.set();
    return true;
  }
}
