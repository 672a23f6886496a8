import { nextUtcMidnight } from '../lib/utc-day.ts';
import type { Usage } from '../repositories/usage.ts';
import type { Limits } from './plans.ts';
import { RollingWindow } from './rolling-window.ts';

export type LimitType = 'per_second' | 'daily';

/** Everything a response needs to say about the subject's limits after this request. */
export interface RateDecision {
  allowed: boolean;
  /** Which limit refused the request (daily wins when both are exhausted). */
  refusedBy: LimitType | null;
  /** Whole seconds to wait, at least 1; only for refused requests. */
  retryAfter: number;
  limits: Limits;
  remaining: number;
  /** Epoch ms when the oldest request in the window leaves it (now, when the window is empty). */
  resetAtMs: number;
  dailyUsed: number;
  dailyRemaining: number;
  /** Next midnight UTC, epoch ms. */
  dailyResetAtMs: number;
  nowMs: number;
}

/**
 * Two independent limits per subject: an exact rolling one-second window and a UTC-day quota. A request is
 * counted against both only when both allow it; a refused request consumes neither (it is only recorded as
 * refused in the usage report).
 */
export class RateLimiter {
  readonly #usage: Usage;
  readonly #now: () => number;
  readonly #windows = new Map<string, RollingWindow>();

  constructor(usage: Usage, now: () => number) {
    this.#usage = usage;
    this.#now = now;
  }

  async check(subject: string, limits: Limits): Promise<RateDecision> {
    const nowMs = this.#now();
    // The counter is live: read after the await, it holds what requests answered meanwhile counted.
    const today = await this.#usage.today(subject, nowMs);
    const window = this.#window(subject, limits.perSecond);
    const dailyUsed = today.requests;
    const dailyResetAtMs = nextUtcMidnight(nowMs);

    let refusedBy: LimitType | null = null;
    if (dailyUsed >= limits.daily) refusedBy = 'daily';
    else if (!window.tryAcquire(nowMs)) refusedBy = 'per_second';

    if (refusedBy) this.#usage.countRefused(subject, nowMs, refusedBy);
    else this.#usage.countRequest(subject, nowMs);

    const used = window.used(nowMs);
    const resetAtMs = window.resetAt(nowMs);
    const waitMs = refusedBy === 'daily' ? dailyResetAtMs - nowMs : resetAtMs - nowMs;
    const dailyNow = dailyUsed + (refusedBy ? 0 : 1);
    return {
      allowed: refusedBy === null,
      refusedBy,
      retryAfter: refusedBy ? Math.max(1, Math.ceil(waitMs / 1000)) : 0,
      limits,
      remaining: Math.max(0, limits.perSecond - used),
      resetAtMs,
      dailyUsed: dailyNow,
      dailyRemaining: Math.max(0, limits.daily - dailyNow),
      dailyResetAtMs,
      nowMs,
    };
  }

  #window(subject: string, perSecond: number): RollingWindow {
    let window = this.#windows.get(subject);
    // A changed plan takes effect at once with a fresh window.
    if (!window || window.limit !== perSecond) {
      window = new RollingWindow(perSecond);
      this.#windows.set(subject, window);
    }
    return window;
  }
}
