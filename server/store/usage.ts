import type Database from 'better-sqlite3';
import { utcDay } from '../lib/utc-day.ts';
import type { DayUsage, Usage } from '../repositories/usage.ts';

interface Counter extends DayUsage {
  subject: string;
  /** Counts not yet written to SQLite (the flush adds them, so several processes' counts sum up). */
  pending: { requests: number; refusedPerSecond: number; refusedDaily: number };
}

/**
 * Request counts per subject and UTC day: the daily quota and the usage report. Counting happens in memory on
 * every request; SQLite gets the increments in one transaction per `flush()` (the service flushes every second
 * and on shutdown), so a crash loses at most about a second of counts and the disk is never the bottleneck.
 * The SQLite implementation of Usage (repositories/usage.ts).
 */
export class UsageStore implements Usage {
  readonly #db: Database.Database;
  readonly #counters = new Map<string, Counter>();
  readonly #dirty = new Set<Counter>();
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
    return this.#counter(subject, nowMs);
  }

  countRequest(subject: string, nowMs: number): void {
    const c = this.#counter(subject, nowMs);
    c.requests++;
    c.pending.requests++;
    this.#dirty.add(c);
  }

  countRefused(subject: string, nowMs: number, limit: 'per_second' | 'daily'): void {
    const c = this.#counter(subject, nowMs);
    if (limit === 'daily') {
      c.refusedDaily++;
      c.pending.refusedDaily++;
    } else {
      c.refusedPerSecond++;
      c.pending.refusedPerSecond++;
    }
    this.#dirty.add(c);
  }

  /**
   * Write pending increments. Cheap when nothing changed. A failed write (a full disk) keeps them for the next
   * flush: they are taken off only once the transaction has committed.
   */
  async flush(): Promise<void> {
    this.#flush();
  }

  #flush(): void {
    if (this.#dirty.size === 0) return;
    const batch = [...this.#dirty].map((c) => ({ c, sent: { ...c.pending } }));
    this.#db.transaction(() => {
      for (const { c, sent } of batch)
        this.#add.run(c.subject, c.day, sent.requests, sent.refusedPerSecond, sent.refusedDaily);
    })();
    for (const { c, sent } of batch) {
      c.pending.requests -= sent.requests;
      c.pending.refusedPerSecond -= sent.refusedPerSecond;
      c.pending.refusedDaily -= sent.refusedDaily;
      const { requests, refusedPerSecond, refusedDaily } = c.pending;
      if (requests === 0 && refusedPerSecond === 0 && refusedDaily === 0) this.#dirty.delete(c);
    }
  }

  /** The last `days` UTC days (today included), newest first; days without requests are omitted. */
  async history(subject: string, nowMs: number, days = 30): Promise<DayUsage[]> {
    try {
      this.#flush();
    } catch {
      // A full disk: what is stored is answered; the pending counts are written by a later flush.
    }
    const from = utcDay(nowMs - (days - 1) * 86_400_000);
    return this.#history.all(subject, from);
  }

  /** The UTC day of the last lookup and its bounds: formatting a date on every request would cost more. */
  #day = { name: '', from: 0, to: 0 };

  #dayOf(nowMs: number): string {
    if (nowMs < this.#day.from || nowMs >= this.#day.to) {
      const from = nowMs - (nowMs % 86_400_000);
      this.#day = { name: utcDay(nowMs), from, to: from + 86_400_000 };
    }
    return this.#day.name;
  }

  #counter(subject: string, nowMs: number): Counter {
    const day = this.#dayOf(nowMs);
    let c = this.#counters.get(subject);
    if (!c || c.day !== day) {
      const stored = this.#select.get(subject, day);
      // A replaced counter stays in #dirty until flushed: yesterday's last increments go to yesterday's row.
      c = {
        subject,
        day,
        requests: stored?.requests ?? 0,
        refusedPerSecond: stored?.refusedPerSecond ?? 0,
        refusedDaily: stored?.refusedDaily ?? 0,
        pending: { requests: 0, refusedPerSecond: 0, refusedDaily: 0 },
      };
      this.#counters.set(subject, c);
    }
    return c;
  }
}
