/**
 * A remote kind's calls (Google's Sheets quota per account) counted in the team's shared limits, so the instances
 * of a team together keep within an account's per-minute quota: a one-minute rolling window per subject, exact
 * across instances, with no daily cap.
 */
import type { SharedLimits } from '../repositories/shared-limits.ts';
import type { SharedCalls } from '../sources/kind.ts';

const MINUTE_MS = 60_000;

export function sharedCallsOf(limits: SharedLimits): SharedCalls {
  return async (subject, limit, nowMs) => {
    const answer = await limits.take({
      subject,
      perSecond: limit,
      daily: Number.MAX_SAFE_INTEGER,
      nowMs,
      windowMs: MINUTE_MS,
    });
    return { taken: answer.refusedBy === null, msUntilFree: Math.max(1, answer.resetAtMs - nowMs) };
  };
}
