/**
 * The local SQLite database (`<dataDir>/sheetport.db`): connections, API keys, idempotency records.
 *
 * The CLI and the server may have the same file open at the same time: WAL lets readers and one writer work
 * concurrently, and busy_timeout makes a second writer wait instead of failing with SQLITE_BUSY.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations.ts';

export const DB_FILE_NAME = 'sheetport.db';

export function openDatabase(dataDir: string): Database.Database {
  // Private to the user: the database holds webhook secrets and the admin token sits beside it.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(path.join(dataDir, DB_FILE_NAME));
  try {
    // busy_timeout first: switching to WAL needs a lock, and another process may be opening the file right now.
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    // Safe with WAL (no corruption on power loss; at worst the last commits are lost) and much faster than FULL.
    db.pragma('synchronous = NORMAL');
    migrate(db);
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
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): void {
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
