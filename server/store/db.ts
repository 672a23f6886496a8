/**
 * The local SQLite database (`<dataDir>/sheetport.db`): connections, API keys, webhooks, idempotency records.
 *
 * The CLI and the server may have the same file open at the same time: WAL lets readers and one writer work
 * concurrently, and busy_timeout makes a second writer wait instead of failing with SQLITE_BUSY.
 *
 * Opening also opens the data dir's secrets provider and its data key: webhook secrets and stored idempotent
 * answers are sealed with it (secrets/at-rest.ts), and the stores find it through the database (db-binding.ts).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDir, ensurePrivateFile, tightenIfPresent } from '../lib/private-files.ts';
import { openSecretsProvider } from '../secrets/choose.ts';
import { loadOrCreateDataKey } from '../secrets/data-key.ts';
import { bindSecrets } from '../secrets/db-binding.ts';
import type { SecretsProvider } from '../secrets/provider.ts';
import { MIGRATIONS, type Migration, type MigrationEnv } from './migrations.ts';
import { hasPlaintext, hasSealedValues, scrubFreedPages, sealPlaintext } from './seal-at-rest.ts';

export const DB_FILE_NAME = 'sheetport.db';

/** The open database, as the layers above store/ may hold it (to close it, or hand it back to store/). */
export type SqliteDatabase = Database.Database;

export interface OpenDatabaseOptions {
  /** The data dir's secrets provider, when the caller already opened it (default: openSecretsProvider). */
  secrets?: SecretsProvider;
  /** Where a new data dir keeps its secrets (config.ts's `secrets`); default: as the environment says. */
  secretsChoice?: string;
  /**
   * better-sqlite3's compiled addon to load instead of the one it finds itself (its `nativeBinding` option): for a
   * runtime other than Node, such as the tray app's Electron, whose build lives apart from Node's.
   */
  nativeBinding?: string;
}

export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): Database.Database {
  // Private to the user: the database holds webhook data and API key hashes. SQLite creates -wal and -shm with
  // the database file's mode, so making that file 0600 before SQLite opens it covers all three; files left
  // wider by an older version are tightened.
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, DB_FILE_NAME);
  ensurePrivateFile(file);
  tightenIfPresent(`${file}-wal`);
  tightenIfPresent(`${file}-shm`);
  const provider =
    options.secrets ??
    openSecretsProvider(
      dataDir,
      options.secretsChoice !== undefined ? { choice: options.secretsChoice } : {},
    );
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  try {
    // busy_timeout first: switching to WAL needs a lock, and another process may be opening the file right now.
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    // Safe with WAL (no corruption on power loss; at worst the last commits are lost) and much faster than FULL.
    db.pragma('synchronous = NORMAL');
    const box = loadOrCreateDataKey(
      {
        underWriteLock: (fn) => db.transaction(fn).immediate(),
        hasSealedValues: () => hasSealedValues(db),
      },
      provider,
    );
    const env: MigrationEnv = { box };
    migrate(db, MIGRATIONS, env);
    // Plaintext written after the upgrade by an older SheetPort that was still running is sealed now.
    if (hasPlaintext(db) && db.transaction(() => sealPlaintext(db, box)).immediate() > 0)
      env.rewroteSecrets = true;
    if (env.rewroteSecrets) scrubFreedPages(db);
    bindSecrets(db, { box, provider });
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

export function userVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Apply pending migrations, each in its own `BEGIN IMMEDIATE` transaction. IMMEDIATE takes the write lock up
 * front, and user_version is re-read inside it, so when two processes open a fresh database at once the
 * second waits for the first and then skips what the first already applied.
 */
export function migrate(
  db: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
  env: MigrationEnv = {},
): void {
  checkOrder(migrations);
  const latest = migrations.at(-1)?.version ?? 0;
  const current = userVersion(db);
  if (current > latest) {
    throw new Error(
      `The database in ${db.name} has schema version ${current}, newer than this SheetPort understands (${latest}). Upgrade SheetPort.`,
    );
  }
  if (current === latest) return;

  for (const migration of migrations) {
    const apply = db.transaction(() => {
      if (userVersion(db) >= migration.version) return; // another process got there first
      db.exec(migration.sql);
      migration.up?.(db, env);
      // PRAGMA values cannot be bound; the version is an integer we control.
      db.pragma(`user_version = ${migration.version}`);
    });
    try {
      apply.immediate();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(`Database migration ${migration.version} (${migration.name}) failed: ${message}`, {
        cause: err,
      });
    }
  }
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1 || !Number.isInteger(m.version)) {
      throw new Error(
        `Migrations must be numbered 1, 2, 3, ... in order; found ${m.version} at position ${i + 1}`,
      );
    }
  });
}
