/** A fresh PostgreSQL database migrated for team mode, and a pool on it (the caller ends the pool). */
import { migrate } from '../../server/store-pg/migrate.ts';
import { openPool, type Pool } from '../../server/store-pg/pool.ts';
import { freshDatabase } from './postgres.ts';

export async function teamDatabase(): Promise<{ url: string; pool: Pool }> {
  const url = await freshDatabase();
  const pool = openPool(url);
  await migrate(pool);
  return { url, pool };
}
