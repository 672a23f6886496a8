/**
 * Readiness of the SQLite store (`/readyz`): the database is open, answers a query, and is at the schema version
 * this SheetPort's migrations end at. Rejects saying which of these is not so.
 */
import type { SqliteDatabase } from './db.ts';
import { userVersion } from './db.ts';
import { MIGRATIONS } from './migrations.ts';

export async function sqliteReady(db: SqliteDatabase): Promise<void> {
  if (!db.open) throw new Error('the SQLite database is closed');
  const version = userVersion(db); // a read of the database's header: the file answers
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  if (version !== latest) {
    throw new Error(
      `the SQLite database is at schema version ${version}; this SheetPort runs on version ${latest}`,
    );
  }
}
