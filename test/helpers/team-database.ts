/**
 * A fresh PostgreSQL database migrated for team mode's coordination (leases, locks, shared limits). While the
 * list of migrations does not yet start at 1 in this tree, stand-ins take the places of the ones before the
 * team's, which it needs no table of.
 */
import { migrate } from '../../server/store-pg/migrate.ts';
import { MIGRATIONS, type PgMigration } from '../../server/store-pg/migrations.ts';
import { openPool, type Pool } from '../../server/store-pg/pool.ts';
import { freshDatabase } from './postgres.ts';

const STAND_INS: PgMigration[] = [
  { version: 1, name: 'stand-in 1', sql: 'SELECT 1' },
  { version: 2, name: 'stand-in 2', sql: 'SELECT 1' },
];

/** Team mode's migrations, with stand-ins for those before it where this tree lacks them. */
export function teamMigrations(): readonly PgMigration[] {
  if (MIGRATIONS[0]?.version === 1) return MIGRATIONS;
  return [...STAND_INS, ...MIGRATIONS];
}

/** A migrated database's URL and a pool on it (the caller ends the pool). */
export async function teamDatabase(): Promise<{ url: string; pool: Pool }> {
  const url = await freshDatabase();
  const pool = openPool(url);
  await migrate(pool, teamMigrations());
  return { url, pool };
}
