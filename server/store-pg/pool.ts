/**
 * The connection pool to team mode's PostgreSQL database (node-postgres), and the one way store-pg/ runs a
 * transaction. Numbers come back as numbers: BIGINT columns hold epoch milliseconds and counts far below 2^53.
 */
import pg from 'pg';

// int8 (BIGINT) and numeric as JavaScript numbers: every such column holds an epoch ms or a count.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number(v));

export type Pool = pg.Pool;
export type Client = pg.PoolClient;
/** Something that runs a query: the pool, or a transaction's client. */
export type Queryable = Pick<pg.Pool, 'query'>;

export interface PoolOptions {
  /** Connections per instance (default 10). */
  max?: number;
}

export function openPool(databaseUrl: string, options: PoolOptions = {}): Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    application_name: 'sheetport',
  });
  // An idle client whose server went away emits here; without a listener that would end the process.
  pool.on('error', () => {});
  return pool;
}

/**
 * Runs `work` in one transaction (READ COMMITTED unless `isolation` says otherwise): committed when it resolves,
 * rolled back when it throws. A serialization failure or deadlock is retried, up to 5 times.
 */
export async function tx<T>(
  pool: Pool,
  work: (client: Client) => Promise<T>,
  isolation: 'READ COMMITTED' | 'REPEATABLE READ' | 'SERIALIZABLE' = 'READ COMMITTED',
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    // A checked-out client whose server goes away emits `error`: without a listener that would end the process.
    // The query in flight fails too, which is what this transaction answers with.
    const ignore = () => {};
    client.on('error', ignore);
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      // 40001 serialization_failure, 40P01 deadlock_detected: the transaction may simply run again.
      const code = (err as { code?: string }).code;
      if ((code === '40001' || code === '40P01') && attempt < 5) continue;
      throw err;
    } finally {
      client.off('error', ignore);
      client.release();
    }
  }
}
