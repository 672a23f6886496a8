/**
 * Team mode's migration runner against a real PostgreSQL: instances starting together migrate once, and a
 * database newer than the code is refused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../server/store-pg/migrate.ts';
import { openPool, type Pool } from '../../server/store-pg/pool.ts';
import { freshDatabase } from '../helpers/postgres.ts';

const pools: Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()));
});

const two = [
  { version: 1, name: 'one', sql: 'CREATE TABLE t1 (id INT PRIMARY KEY)' },
  { version: 2, name: 'two', sql: 'CREATE TABLE t2 (id INT PRIMARY KEY); INSERT INTO t1 VALUES (1)' },
];

describe('PostgreSQL migrations', () => {
  it('applies each migration once when instances start together', async () => {
    const url = await freshDatabase();
    const a = openPool(url);
    const b = openPool(url);
    pools.push(a, b);
    expect(await schemaVersion(a)).toBe(0);
    await Promise.all([migrate(a, two), migrate(b, two), migrate(a, two)]);
    expect(await schemaVersion(b)).toBe(2);
    const { rows } = await a.query('SELECT count(*)::int AS n FROM t1');
    expect(rows[0].n).toBe(1);
  });

  it('refuses a database migrated past what this code knows', async () => {
    const pool = openPool(await freshDatabase());
    pools.push(pool);
    await migrate(pool, two);
    await expect(migrate(pool, two.slice(0, 1))).rejects.toThrow(/newer than this SheetPort knows/);
  });

  it('refuses a list with a gap', async () => {
    const pool = openPool(await freshDatabase());
    pools.push(pool);
    await expect(migrate(pool, [two[1]!])).rejects.toThrow(/numbered 2, not 1/);
  });
});
