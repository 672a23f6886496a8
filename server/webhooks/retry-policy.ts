/** Retries after the 1st, 2nd and 3rd failed attempt (seed section 3): 30 s, 5 min, 30 min. */
export const RETRY_DELAYS_MS: readonly number[] = [30_000, 5 * 60_000, 30 * 60_000];

export interface NextStep {
  state: 'pending' | 'failed';
  nextAttemptAt: number | null;
}

/**
 * After a failed attempt: the next retry, or `failed` once all three retries are used. A manual replay is a
 * single extra attempt: when it fails too, the delivery is failed again (replay it again if you like).
 * `autoAttempts` counts the automatic attempts made so far, this one included.
 */
export function afterFailure(autoAttempts: number, replay: boolean, nowMs: number): NextStep {
  if (replay) return { state: 'failed', nextAttemptAt: null };
  const delay = RETRY_DELAYS_MS[autoAttempts - 1];
  return delay === undefined
    ? { state: 'failed', nextAttemptAt: null }
    : { state: 'pending', nextAttemptAt: nowMs + delay };
}
