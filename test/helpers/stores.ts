/**
 * One factory for the store suites that run against both implementations: a fresh SQLite data dir, or a fresh
 * PostgreSQL database on the run's cluster (test/helpers/postgres.ts) opened as team mode's store. `again()`
 * opens a second handle on the same database (another process, another instance); `sql` runs a portable query
 * for the suites that count rows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Idempotency } from '../../server/repositories/idempotency.ts';
import type { Repositories } from '../../server/repositories/index.ts';
import {
  type IdempotencyOptions,
  IdempotencyRepository,
} from '../../server/repositories/rules/idempotency.ts';
import type { Store } from '../../server/repositories/store.ts';
import type { SecretsProvider } from '../../server/secrets/provider.ts';
import { SqliteIdempotencyStatements } from '../../server/store/idempotency.ts';
import { openSqliteRepositories } from '../../server/store/sqlite-repositories.ts';
import { sqliteTransactional } from '../../server/store/transactional.ts';
import { pgIdempotencyStatements } from '../../server/store-pg/idempotency.ts';
import { openPgStore } from '../../server/store-pg/pg-store.ts';
import { secretBoxFromKey } from '../../server/store-pg/secret-key.ts';
import { pgTransactional } from '../../server/store-pg/transactional.ts';
import { freshDatabase, TEST_SECRET_KEY } from './postgres.ts';

export type TestStoreKind = 'sqlite' | 'postgres';
export const STORE_KINDS: readonly TestStoreKind[] = ['sqlite', 'postgres'];

export interface TestStore extends Repositories {
  kind: TestStoreKind;
  webhooks: Store['webhooks'];
  changeLog: Store['changeLog'];
  changeRecording: Store['changeRecording'];
  secrets: SecretsProvider;
  /** Rows of a query both databases run alike. */
  sql(query: string): Promise<Record<string, unknown>[]>;
  /** An Idempotency over the same database with other TTLs. */
  idempotencyWith(options: IdempotencyOptions): Idempotency;
  /** A second handle on the same database (closed with this one). */
  again(): Promise<TestStore>;
  close(): Promise<void>;
}

export interface TestStoreOptions {
  clock?: () => Date;
}

/** Opens a store of `kind` on a new, empty database; `close()` removes what it made. */
export async function openTestStore(kind: TestStoreKind, options: TestStoreOptions = {}): Promise<TestStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sheetport-${kind}-`));
  const url = kind === 'postgres' ? await freshDatabase() : '';
  const open = (dataDir: string) =>
    kind === 'sqlite' ? openSqlite(dataDir, options) : openPostgres(url, dataDir, options);
  const first = await open(dir);
  const others: TestStore[] = [];
  let n = 0;
  const withAgain = (store: TestStore): TestStore => {
    store.again = async () => {
      // SQLite: the same data dir; PostgreSQL: another instance, with its own data dir.
      const other = await open(kind === 'sqlite' ? dir : path.join(dir, `instance-${++n}`));
      others.push(other);
      return withAgain(other);
    };
    return store;
  };
  const close = first.close;
  first.close = async () => {
    for (const other of others.splice(0)) await other.close();
    await close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return withAgain(first);
}

async function openSqlite(dataDir: string, options: TestStoreOptions): Promise<TestStore> {
  const repos = openSqliteRepositories(dataDir, options.clock ? { clock: options.clock } : {});
  return {
    ...repos,
    kind: 'sqlite',
    secrets: repos.secrets,
    sql: async (query) => repos.db.prepare(query).all() as Record<string, unknown>[],
    idempotencyWith: (o) =>
      new IdempotencyRepository(
        sqliteTransactional(repos.db, new SqliteIdempotencyStatements(repos.db)),
        repos.databaseSecrets.box,
        options.clock,
        o,
      ),
    again: () => Promise.reject(new Error('set by openTestStore')),
    close: async () => repos.close(),
  };
}

async function openPostgres(url: string, dataDir: string, options: TestStoreOptions): Promise<TestStore> {
  fs.mkdirSync(dataDir, { recursive: true });
  const store = await openPgStore(
    { databaseUrl: url, secretKey: TEST_SECRET_KEY, leaseTtlMs: 5000 },
    { dataDir, ...(options.clock ? { clock: options.clock } : {}) },
  );
  return {
    ...store,
    kind: 'postgres',
    sql: async (query) => (await store.pool.query(query)).rows,
    idempotencyWith: (o) =>
      new IdempotencyRepository(
        pgTransactional(store.pool, pgIdempotencyStatements),
        secretBoxFromKey(TEST_SECRET_KEY),
        options.clock,
        o,
      ),
    again: () => Promise.reject(new Error('set by openTestStore')),
    close: () => store.close(),
  };
}
