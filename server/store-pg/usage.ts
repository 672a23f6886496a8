/**
 * The usage_daily table in PostgreSQL: the statements of repositories/rules/usage.ts. Every instance adds its
 * flushed counts to the day's row, so they sum up.
 */
import type { DayCounts, UsageStatements } from '../repositories/rules/usage.ts';
import type { DayUsage } from '../repositories/usage.ts';
import type { Queryable } from './pool.ts';
import type { Bind } from './transactional.ts';

const COUNTS = 'requests, refused_per_second AS "refusedPerSecond", refused_daily AS "refusedDaily"';

export const pgUsageStatements: Bind<UsageStatements> = (db) => new PgUsageStatements(db);

class PgUsageStatements implements UsageStatements {
  readonly #db: Queryable;

  constructor(db: Queryable) {
    this.#db = db;
  }

  async dayOf(subject: string, day: string): Promise<DayCounts | undefined> {
    const { rows } = await this.#db.query<DayCounts>(
      `SELECT ${COUNTS} FROM usage_daily WHERE subject = $1 AND day = $2`,
      [subject, day],
    );
    return rows[0];
  }

  async add(subject: string, day: string, counts: DayCounts): Promise<void> {
    await this.#db.query(
      `INSERT INTO usage_daily (subject, day, requests, refused_per_second, refused_daily)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (subject, day) DO UPDATE SET
         requests = usage_daily.requests + excluded.requests,
         refused_per_second = usage_daily.refused_per_second + excluded.refused_per_second,
         refused_daily = usage_daily.refused_daily + excluded.refused_daily`,
      [subject, day, counts.requests, counts.refusedPerSecond, counts.refusedDaily],
    );
  }

  async history(subject: string, fromDay: string): Promise<DayUsage[]> {
    const { rows } = await this.#db.query<DayUsage>(
      `SELECT day, ${COUNTS} FROM usage_daily WHERE subject = $1 AND day >= $2 ORDER BY day DESC`,
      [subject, fromDay],
    );
    return rows;
  }
}
