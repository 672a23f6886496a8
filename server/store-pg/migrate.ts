/**
 * Team mode's schema migrations: numbered, applied in order, each in its own transaction, recorded in
 * `schema_migrations`. Instances starting together take one advisory lock, so each migration runs once; an
 * instance of an older SheetPort refuses a database migrated past what it knows (docs/deploy.md, "Upgrades").
 */
import { AppError } from '../errors.ts';
import { MIGRATIONS, type PgMigration } from './migrations.ts';
import type { Pool } from './pool.ts';

/** The advisory lock's key while migrating (any constant no other lock in store-pg/ uses). */
const MIGRATION_LOCK = 7_318_201;

export async function migrate(pool: Pool, migrations: readonly PgMigration[] = MIGRATIONS): Promise<number> {
  checkNumbering(migrations);
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ v: number | null }>(
      'SELECT max(version) AS v FROM schema_migrations',
    );
    const current = rows[0]?.v ?? 0;
    const newest = migrations.at(-1)?.version ?? 0;
    if (current > newest) {
      throw new AppError(
        'internal_error',
        `The team database is at schema version ${current}, newer than this SheetPort knows (${newest}): ` +
          'upgrade this instance (docs/deploy.md, "Upgrades").',
      );
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
          migration.version,
          migration.name,
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    }
    return newest;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}

/** The schema version a database is at (0: none yet); for `/readyz`. */
export async function schemaVersion(pool: Pool): Promise<number> {
  const exists = await pool.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
  if (!exists.rows[0]?.t) return 0;
  const { rows } = await pool.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
  return rows[0]?.v ?? 0;
}

function checkNumbering(migrations: readonly PgMigration[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`PostgreSQL migration ${m.name} is numbered ${m.version}, not ${i + 1}`);
  });
}
