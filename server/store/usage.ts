import type Database from 'better-sqlite3';
import { utcDay } from '../lib/utc-day.ts';
import type { DayUsage, Usage } from '../repositories/usage.ts';
import { type Counter, counterFrom, DAY_MS, UsageCounters } from './usage-counters.ts';

/**
 * Request counts per subject and UTC day: the daily quota and the usage report. Counting happens in memory on
 * every request; SQLite gets the increments in one transaction per `flush()` (the service flushes every second
 * and on shutdown), so a crash loses at most about a second of counts and the disk is never the bottleneck.
 * The SQLite implementation of Usage (repositories/usage.ts).
 */
export class UsageStore implements Usage {
  readonly #db: Database.Database;
  /** Loaded from SQLite on first use and when the UTC day turns. */
  readonly #counters = new UsageCounters<Counter>((subject, day) =>
    counterFrom(subject, day, this.#select.get(subject, day)),
  );
  readonly #select: Database.Statement<[string, string], DayUsage>;
  readonly #add: Database.Statement<[string, string, number, number, number]>;
  readonly #history: Database.Statement<[string, string], DayUsage>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#select = db.prepare(
      `SELECT day, requests, refused_per_second AS refusedPerSecond, refused_daily AS refusedDaily
       FROM usage_daily WHERE subject = ? AND day = ?`,
    );
    this.#add = db.prepare(
      `INSERT INTO usage_daily (subject, day, requests, refused_per_second, refused_daily) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (subject, day) DO UPDATE SET
         requests = requests + excluded.requests,
         refused_per_second = refused_per_second + excluded.refused_per_second,
         refused_daily = refused_daily + excluded.refused_daily`,
    );
    this.#history = db.prepare(
      `SELECT day, requests, refused_per_second AS refusedPerSecond, refused_daily AS refusedDaily
       FROM usage_daily WHERE subject = ? AND day >= ? ORDER BY day DESC`,
    );
  }

  /** Today's counter for a subject; loaded from SQLite on first use and when the UTC day turns. */
  async today(subject: string, nowMs: number): Promise<Readonly<DayUsage>> {
    return this.#counters.counter(subject, nowMs);
  }

  countRequest(subject: string, nowMs: number): void {
    this.#counters.countRequest(subject, nowMs);
  }

  countRefused(subject: string, nowMs: number, limit: 'per_second' | 'daily'): void {
    this.#counters.countRefused(subject, nowMs, limit);
  }

  /**
   * Write pending increments. Cheap when nothing changed. A failed write (a full disk) keeps them for the next
   * flush: they are taken off only once the transaction has committed.
   */
  async flush(): Promise<void> {
    this.#flush();
  }

  #flush(): void {
    const batch = this.#counters.pending();
    if (batch.length === 0) return;
    this.#db.transaction(() => {
      for (const { c, sent } of batch)
        this.#add.run(c.subject, c.day, sent.requests, sent.refusedPerSecond, sent.refusedDaily);
    })();
    this.#counters.stored(batch);
  }

  /** The last `days` UTC days (today included), newest first; days without requests are omitted. */
  async history(subject: string, nowMs: number, days = 30): Promise<DayUsage[]> {
    try {
      this.#flush();
    } catch {
      // A full disk: what is stored is answered; the pending counts are written by a later flush.
    }
    const from = utcDay(nowMs - (days - 1) * DAY_MS);
    return this.#history.all(subject, from);
  }
}
