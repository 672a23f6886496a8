/**
 * Request counts per subject and UTC day in PostgreSQL, as store/usage.ts: counted in memory on every request
 * (synchronously), added to the day's row by `flush` (the service flushes every second), so every instance's
 * counts sum up in the database. A subject's stored count is read when its counter is first made; counts made
 * before that read answers are kept apart and added on top, never lost.
 */
import { utcDay } from '../lib/utc-day.ts';
import type { DayUsage, Usage } from '../repositories/usage.ts';
import { type Counter, counterFrom, DAY_MS, UsageCounters } from '../store/usage-counters.ts';
import { type Pool, tx } from './pool.ts';

interface LoadingCounter extends Counter {
  /** Resolves once the stored counts of the day were read and added in. */
  loaded: Promise<void>;
}

export class PgUsage implements Usage {
  readonly #pool: Pool;
  readonly #log: (message: string, err?: unknown) => void;
  readonly #counters = new UsageCounters<LoadingCounter>((subject, day) => {
    const c: LoadingCounter = { ...counterFrom(subject, day), loaded: Promise.resolve() };
    c.loaded = this.#load(c);
    return c;
  });
  #flushing: Promise<void> = Promise.resolve();

  constructor(pool: Pool, log: (message: string, err?: unknown) => void = () => {}) {
    this.#pool = pool;
    this.#log = log;
  }

  async today(subject: string, nowMs: number): Promise<Readonly<DayUsage>> {
    const counter = this.#counters.counter(subject, nowMs);
    await counter.loaded;
    return counter;
  }

  countRequest(subject: string, nowMs: number): void {
    this.#counters.countRequest(subject, nowMs);
  }

  countRefused(subject: string, nowMs: number, limit: 'per_second' | 'daily'): void {
    this.#counters.countRefused(subject, nowMs, limit);
  }

  /**
   * Adds the pending counts to their rows in one transaction; taken off only once it committed, so a failed
   * flush keeps them for the next. Waits for the counters' first reads, so a read never sees its own flush.
   */
  async flush(): Promise<void> {
    // One at a time: two flushes overlapping would both send the same pending counts.
    const run = this.#flushing.catch(() => {}).then(() => this.#flushOnce());
    this.#flushing = run;
    return run;
  }

  async #flushOnce(): Promise<void> {
    if (this.#counters.pending().length === 0) return;
    await Promise.all(this.#counters.pending().map(({ c }) => c.loaded));
    const batch = this.#counters.pending();
    await tx(this.#pool, async (client) => {
      for (const { c, sent } of batch) {
        await client.query(
          `INSERT INTO usage_daily (subject, day, requests, refused_per_second, refused_daily)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (subject, day) DO UPDATE SET
             requests = usage_daily.requests + excluded.requests,
             refused_per_second = usage_daily.refused_per_second + excluded.refused_per_second,
             refused_daily = usage_daily.refused_daily + excluded.refused_daily`,
          [c.subject, c.day, sent.requests, sent.refusedPerSecond, sent.refusedDaily],
        );
      }
    });
    this.#counters.stored(batch);
  }

  async history(subject: string, nowMs: number, days = 30): Promise<DayUsage[]> {
    try {
      await this.flush();
    } catch (err) {
      this.#log('Writing the request counts failed; answering what is stored', err);
    }
    const from = utcDay(nowMs - (days - 1) * DAY_MS);
    const { rows } = await this.#pool.query<DayUsage>(
      `SELECT day, requests, refused_per_second AS "refusedPerSecond", refused_daily AS "refusedDaily"
       FROM usage_daily WHERE subject = $1 AND day >= $2 ORDER BY day DESC`,
      [subject, from],
    );
    return rows;
  }

  /** Adds the stored counts of the counter's day to what was counted meanwhile; a failed read counts from 0. */
  async #load(c: LoadingCounter): Promise<void> {
    try {
      const { rows } = await this.#pool.query<DayUsage>(
        `SELECT requests, refused_per_second AS "refusedPerSecond", refused_daily AS "refusedDaily"
         FROM usage_daily WHERE subject = $1 AND day = $2`,
        [c.subject, c.day],
      );
      const stored = rows[0];
      if (!stored) return;
      c.requests += stored.requests;
      c.refusedPerSecond += stored.refusedPerSecond;
      c.refusedDaily += stored.refusedDaily;
    } catch (err) {
      this.#log(`Reading today's request counts of ${c.subject} failed; counting from here`, err);
    }
  }
}
