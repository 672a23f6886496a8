import { nextUtcMidnight } from '../lib/utc-day.ts';
import type { SharedLimitAnswer, SharedLimits } from '../repositories/shared-limits.ts';
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

/** The rolling window's length: "per second". */
const WINDOW_MS = 1000;

/**
 * Two independent limits per subject: an exact rolling one-second window and a UTC-day quota. A request is
 * counted against both only when both allow it; a refused request consumes neither (it is only recorded as
 * refused in the usage report). On one machine the window is in memory and the day's count is the usage
 * counter's; given `SharedLimits` (team mode), both are taken there in one call, exact across instances, and the
 * usage report is still counted here.
 */
export class RateLimiter {
  readonly #usage: Usage;
  readonly #now: () => number;
  readonly #shared: SharedLimits | null;
  readonly #windows = new Map<string, RollingWindow>();

  constructor(usage: Usage, now: () => number, shared?: SharedLimits) {
    this.#usage = usage;
    this.#now = now;
    this.#shared = shared ?? null;
  }

  async check(subject: string, limits: Limits): Promise<RateDecision> {
    const nowMs = this.#now();
    const taken = this.#shared
      ? await this.#shared.take({ subject, ...limits, nowMs, windowMs: WINDOW_MS })
      : await this.#takeInMemory(subject, limits, nowMs);
    if (taken.refusedBy) this.#usage.countRefused(subject, nowMs, taken.refusedBy);
    else if (this.#shared) this.#usage.countRequest(subject, nowMs);
    return decisionOf(limits, nowMs, taken);
  }

  /** The rule of `SharedLimits.take`, with this process's window and the usage counter's day. */
  async #takeInMemory(subject: string, limits: Limits, nowMs: number): Promise<SharedLimitAnswer> {
    // The counter is live: read after the await, it holds what requests answered meanwhile counted.
    const today = await this.#usage.today(subject, nowMs);
    const window = this.#window(subject, limits.perSecond);
    const dailyUsed = today.requests;
    let refusedBy: LimitType | null = null;
    if (dailyUsed >= limits.daily) refusedBy = 'daily';
    else if (!window.tryAcquire(nowMs)) refusedBy = 'per_second';
    // Counted at once, before any await: the next request's daily check sees it.
    else this.#usage.countRequest(subject, nowMs);
    return {
      refusedBy,
      used: window.used(nowMs),
      resetAtMs: window.resetAt(nowMs),
      dailyUsed: dailyUsed + (refusedBy ? 0 : 1),
    };
  }

  #window(subject: string, perSecond: number): RollingWindow {
    let window = this.#windows.get(subject);
    // A changed plan takes effect at once with a fresh window.
    if (!window || window.limit !== perSecond) {
      window = new RollingWindow(perSecond, WINDOW_MS);
      this.#windows.set(subject, window);
    }
    return window;
  }
}

/** What a response says about both limits after a request, from where the request was taken. */
function decisionOf(limits: Limits, nowMs: number, taken: SharedLimitAnswer): RateDecision {
  const { refusedBy, used, resetAtMs, dailyUsed } = taken;
  const dailyResetAtMs = nextUtcMidnight(nowMs);
  const waitMs = refusedBy === 'daily' ? dailyResetAtMs - nowMs : resetAtMs - nowMs;
  return {
    allowed: refusedBy === null,
    refusedBy,
    retryAfter: refusedBy ? Math.max(1, Math.ceil(waitMs / 1000)) : 0,
    limits,
    remaining: Math.max(0, limits.perSecond - used),
    resetAtMs,
    dailyUsed,
    dailyRemaining: Math.max(0, limits.daily - dailyUsed),
    dailyResetAtMs,
    nowMs,
  };
}
