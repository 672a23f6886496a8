/**
 * The usage_daily table in SQLite: the statements of repositories/rules/usage.ts.
 */
import type Database from 'better-sqlite3';
import type { DayCounts, UsageStatements } from '../repositories/rules/usage.ts';
import type { DayUsage } from '../repositories/usage.ts';

const COUNTS = 'requests, refused_per_second AS refusedPerSecond, refused_daily AS refusedDaily';

export class SqliteUsageStatements implements UsageStatements {
  readonly #dayOf: Database.Statement<[string, string], DayCounts>;
  readonly #add: Database.Statement<[string, string, number, number, number]>;
  readonly #history: Database.Statement<[string, string], DayUsage>;

  constructor(db: Database.Database) {
    this.#dayOf = db.prepare(`SELECT ${COUNTS} FROM usage_daily WHERE subject = ? AND day = ?`);
    this.#add = db.prepare(
      `INSERT INTO usage_daily (subject, day, requests, refused_per_second, refused_daily) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (subject, day) DO UPDATE SET
         requests = requests + excluded.requests,
         refused_per_second = refused_per_second + excluded.refused_per_second,
         refused_daily = refused_daily + excluded.refused_daily`,
    );
    this.#history = db.prepare(
      `SELECT day, ${COUNTS} FROM usage_daily WHERE subject = ? AND day >= ? ORDER BY day DESC`,
    );
  }

  dayOf(subject: string, day: string): DayCounts | undefined {
    return this.#dayOf.get(subject, day);
  }

  add(subject: string, day: string, counts: DayCounts): void {
    this.#add.run(subject, day, counts.requests, counts.refusedPerSecond, counts.refusedDaily);
  }

  history(subject: string, fromDay: string): DayUsage[] {
    return this.#history.all(subject, fromDay);
  }
}
