/**
 * Limits counted in a database every instance shares (team mode), so a key's rolling one-second burst and its
 * daily quota hold across the whole team, not per instance. One call per request takes a place in both, exactly:
 * the same rule as limits/rate-limiter.ts's in-process window (a refused request consumes neither, and is counted
 * as refused in the usage report). store-pg/ implements it; on one machine the limiter counts in memory.
 */

export interface SharedLimitRequest {
  subject: string;
  perSecond: number;
  daily: number;
  nowMs: number;
  /** The rolling window's length (1000). */
  windowMs: number;
}

export interface SharedLimitAnswer {
  refusedBy: 'per_second' | 'daily' | null;
  /** Requests accepted in the window ending now, this one included when allowed. */
  used: number;
  /** Epoch ms when the oldest request in the window leaves it (now when the window is empty). */
  resetAtMs: number;
  /** Requests counted today (UTC), this one included when allowed. */
  dailyUsed: number;
}

export interface SharedLimits {
  take(request: SharedLimitRequest): Promise<SharedLimitAnswer>;
}
