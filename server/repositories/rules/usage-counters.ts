/**
 * The in-memory side of the usage counts (usage.ts): one counter per subject for its current UTC day, counted
 * synchronously on every request, and the counts not yet written, handed to the flush as a batch and taken off
 * only once that batch is stored. Pure: no database here.
 */
import { utcDay } from '../../lib/utc-day.ts';
import type { DayUsage } from '../usage.ts';

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
