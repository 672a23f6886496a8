import { AppError } from '../errors.ts';
import { quantity } from '../lib/quantity.ts';
import { RecentValues } from '../lib/recent-values.ts';
import { limitsOf, PUBLIC_READ_LIMITS } from '../limits/plans.ts';
import type { RateDecision, RateLimiter } from '../limits/rate-limiter.ts';
import type { Admitted } from './auth.ts';
import type { RouteResponse } from './route-table.ts';

/**
 * Per-key limits on every `/api` and `/v1` request (per client address for anonymous public reads), given the
 * caller the key guard admitted. Headers on every such response, 429 with the seed's body and `Retry-After`
 * when either limit is exhausted.
 */
export function rateLimit(limiter: RateLimiter): (caller: Admitted, res: RouteResponse) => Promise<void> {
  return async ({ key, subject }, res) => {
    const decision = await limiter.check(subject, key ? limitsOf(key) : PUBLIC_READ_LIMITS);
    setRateLimitHeaders(res, decision);
    if (decision.allowed) return;
    res.setHeader('Retry-After', String(decision.retryAfter));
    const message =
      decision.refusedBy === 'daily'
        ? `Daily quota of ${quantity(decision.limits.daily, 'request')} used up; it resets at midnight UTC.`
        : `More than ${quantity(decision.limits.perSecond, 'request')} in one second; slow down.`;
    throw new AppError('rate_limit_exceeded', message, {
      limit_type: decision.refusedBy,
      retry_after: decision.retryAfter,
    });
  };
}

const policies = new RecentValues<string>(1000);

/** The policy field changes only with a key's limits: built once per pair of numbers. */
function policyOf(perSecond: number, daily: number): string {
  return policies.get(
    `${perSecond}/${daily}`,
    () => `"burst";q=${perSecond};w=1, "daily";q=${daily};w=86400`,
  );
}

/**
 * The seed's `X-RateLimit-*` (the burst window), our `X-RateLimit-Daily-*`, and the IETF
 * draft-ietf-httpapi-ratelimit-headers-11 fields `RateLimit-Policy` / `RateLimit` for standard clients.
 */
export function setRateLimitHeaders(res: RouteResponse, d: RateDecision): void {
  const secondsUntil = (ms: number) => Math.max(0, Math.ceil((ms - d.nowMs) / 1000));
  res.setHeader('X-RateLimit-Limit', String(d.limits.perSecond));
  res.setHeader('X-RateLimit-Remaining', String(d.remaining));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil(d.resetAtMs / 1000)));
  res.setHeader('X-RateLimit-Daily-Limit', String(d.limits.daily));
  res.setHeader('X-RateLimit-Daily-Remaining', String(d.dailyRemaining));
  res.setHeader('X-RateLimit-Daily-Reset', String(Math.floor(d.dailyResetAtMs / 1000)));
  res.setHeader('RateLimit-Policy', policyOf(d.limits.perSecond, d.limits.daily));
  res.setHeader(
    'RateLimit',
    `"burst";r=${d.remaining};t=${secondsUntil(d.resetAtMs)}, "daily";r=${d.dailyRemaining};t=${secondsUntil(d.dailyResetAtMs)}`,
  );
}
