/**
 * Request counts per subject and UTC day (usage.ts), once for both databases: counted in memory on every request
 * (synchronously), added to the day's row by `flush` (the service flushes every second and on shutdown), so a
 * crash loses at most about a second of counts, the database is never the bottleneck, and every process's or
 * instance's counts sum up. A subject's stored count is read when its counter is first made; counts made before
 * that read answers are kept apart and added on top, never lost. Each database implements `UsageStatements` in
 * its SQL (store/usage.ts, store-pg/usage.ts). The in-memory side comes first (`UsageCounters`): one counter per
 * subject for its current UTC day, and the counts not yet written, taken off only once their batch is stored.
 */
import { utcDay } from '../../lib/utc-day.ts';
import type { DayUsage, Usage } from '../usage.ts';
import { type Answer, settled, type Transactional } from './transactional.ts';

export const DAY_MS = 86_400_000;

export interface Counter extends DayUsage {
  subject: string;
  /** Counts not yet written (the flush adds them to the day's row, so several processes' counts sum up). */
  pending: { requests: number; refusedPerSecond: number; refusedDaily: number };
}

/** What one flush writes: each counter with the pending counts as they were when the batch was taken. */
export type PendingBatch<C extends Counter> = { c: C; sent: Counter['pending'] }[];

export class UsageCounters<C extends Counter> {
  readonly #counters = new Map<string, C>();
  readonly #dirty = new Set<C>();
  /** The UTC day of the last lookup and its bounds: formatting a date on every request would cost more. */
  #day = { name: '', from: 0, to: 0 };
  /** Makes a subject's counter for a day (the store reads what it holds of that day into it). */
  readonly #make: (subject: string, day: string) => C;

  constructor(make: (subject: string, day: string) => C) {
    this.#make = make;
  }

  /** The subject's counter for the day of `nowMs`; a new one when the day turned (the old one stays pending). */
  counter(subject: string, nowMs: number): C {
    const day = this.#dayOf(nowMs);
    const current = this.#counters.get(subject);
    if (current && current.day === day) return current;
    // A replaced counter stays in #dirty until flushed: yesterday's last counts go to yesterday's row.
    const c = this.#make(subject, day);
    this.#counters.set(subject, c);
    return c;
  }

  countRequest(subject: string, nowMs: number): void {
    const c = this.counter(subject, nowMs);
    c.requests++;
    c.pending.requests++;
    this.#dirty.add(c);
  }

  countRefused(subject: string, nowMs: number, limit: 'per_second' | 'daily'): void {
    const c = this.counter(subject, nowMs);
    if (limit === 'daily') {
      c.refusedDaily++;
      c.pending.refusedDaily++;
    } else {
      c.refusedPerSecond++;
      c.pending.refusedPerSecond++;
    }
    this.#dirty.add(c);
  }

  /** The counters with counts to write, and those counts; empty when nothing changed since the last flush. */
  pending(): PendingBatch<C> {
    return [...this.#dirty].map((c) => ({ c, sent: { ...c.pending } }));
  }

  /** A batch was stored: its counts are taken off (counts made meanwhile stay pending for the next flush). */
  stored(batch: PendingBatch<C>): void {
    for (const { c, sent } of batch) {
      c.pending.requests -= sent.requests;
      c.pending.refusedPerSecond -= sent.refusedPerSecond;
      c.pending.refusedDaily -= sent.refusedDaily;
      const { requests, refusedPerSecond, refusedDaily } = c.pending;
      if (requests === 0 && refusedPerSecond === 0 && refusedDaily === 0) this.#dirty.delete(c);
    }
  }

  #dayOf(nowMs: number): string {
    if (nowMs < this.#day.from || nowMs >= this.#day.to) {
      const from = nowMs - (nowMs % DAY_MS);
      this.#day = { name: utcDay(nowMs), from, to: from + DAY_MS };
    }
    return this.#day.name;
  }
}

/** A counter starting from the counts a store holds of the day (none: zero). */
export function counterFrom(subject: string, day: string, stored?: Partial<DayUsage>): Counter {
  return {
    subject,
    day,
    requests: stored?.requests ?? 0,
    refusedPerSecond: stored?.refusedPerSecond ?? 0,
    refusedDaily: stored?.refusedDaily ?? 0,
    pending: { requests: 0, refusedPerSecond: 0, refusedDaily: 0 },
  };
}

export type DayCounts = Omit<DayUsage, 'day'>;

export interface UsageStatements {
  /** What is stored of a subject's day. */
  dayOf(subject: string, day: string): Answer<DayCounts | undefined>;
  /** Adds counts to a subject's day. */
  add(subject: string, day: string, counts: DayCounts): Answer<void>;
  /** The subject's days from `fromDay` on, newest first. */
  history(subject: string, fromDay: string): Answer<DayUsage[]>;
}

interface LoadingCounter extends Counter {
  /** Resolves once the stored counts of the day were read and added in. */
  loaded: Promise<void>;
}

export class UsageRepository implements Usage {
  readonly #db: Transactional<UsageStatements>;
  readonly #log: (message: string, err?: unknown) => void;
  readonly #counters = new UsageCounters<LoadingCounter>((subject, day) => {
    const c: LoadingCounter = { ...counterFrom(subject, day), loaded: Promise.resolve() };
    c.loaded = this.#load(c);
    return c;
  });
  #flushing: Promise<void> = Promise.resolve();

  constructor(db: Transactional<UsageStatements>, log: (message: string, err?: unknown) => void = () => {}) {
    this.#db = db;
    this.#log = log;
  }

  /** The answer is live: it follows the counts made after it was read. */
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
   * flush (a full disk, the database away) keeps them for the next. Waits for the counters' first reads, so a
   * read never sees its own flush.
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
    await this.#db.transaction(function* (s) {
      for (const { c, sent } of batch) yield* settled(s.add(c.subject, c.day, sent));
    });
    this.#counters.stored(batch);
  }

  /** The last `days` UTC days (today included), newest first; days without requests are omitted. */
  async history(subject: string, nowMs: number, days = 30): Promise<DayUsage[]> {
    try {
      await this.flush();
    } catch (err) {
      this.#log('Writing the request counts failed; answering what is stored', err);
    }
    return this.#db.statements.history(subject, utcDay(nowMs - (days - 1) * DAY_MS));
  }

  /** Adds the stored counts of the counter's day to what was counted meanwhile; a failed read counts from 0. */
  async #load(c: LoadingCounter): Promise<void> {
    try {
      const stored = await this.#db.statements.dayOf(c.subject, c.day);
      if (!stored) return;
      c.requests += stored.requests;
      c.refusedPerSecond += stored.refusedPerSecond;
      c.refusedDaily += stored.refusedDaily;
    } catch (err) {
      this.#log(`Reading today's request counts of ${c.subject} failed; counting from here`, err);
    }
  }
}
