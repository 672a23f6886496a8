/**
 * Retrying Google's transient failures (429 quota, 5xx, no answer) with exponential backoff and jitter, bounded:
 * a few attempts, well under five seconds in all. A request that might have landed before it failed (a 5xx or
 * a timeout on a write that is not idempotent) is retried only after `landed` has looked and found it did not.
 */
import { classify, surelyNotApplied, toAppError } from './errors.ts';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** First delay (ms); each later one doubles; each is scaled by a random factor in [0.5, 1.5). */
  baseMs: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseMs: 250 };

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The delay before retry number `n` (0-based). */
export function backoffMs(policy: RetryPolicy, n: number): number {
  const random = policy.random ?? Math.random;
  return Math.round(policy.baseMs * 2 ** n * (0.5 + random()));
}

export interface RetryHooks<T> {
  /**
   * For a write that must not run twice: after an ambiguous failure, find out whether it landed. A value means
   * it did (that value is the call's result); undefined means it did not, so it is safe to send again.
   */
  landed?: () => Promise<T | undefined>;
}

/** Run `call`, retrying transient failures; any other failure, or the last one, becomes an AppError. */
export async function withRetry<T>(
  call: () => Promise<T>,
  policy: RetryPolicy = DEFAULT_RETRY,
  hooks: RetryHooks<T> = {},
): Promise<T> {
  const sleep = policy.sleep ?? realSleep;
  let last: unknown;
  for (let attempt = 0; attempt < policy.attempts; attempt++) {
    if (attempt > 0) await sleep(backoffMs(policy, attempt - 1));
    try {
      return await call();
    } catch (err) {
      last = err;
      if (classify(err) !== 'transient') throw toAppError(err);
      if (hooks.landed && !surelyNotApplied(err)) {
        const result = await landedOrUndefined(hooks.landed);
        if (result !== undefined) return result;
      }
    }
  }
  throw toAppError(last);
}

/** Whether the write landed, asked a few times; when Google cannot say, the write fails (503) rather than being sent again blind. */
async function landedOrUndefined<T>(landed: () => Promise<T | undefined>): Promise<T | undefined> {
  for (let i = 0; i < 3; i++) {
    try {
      return await landed();
    } catch (err) {
      if (classify(err) !== 'transient') throw toAppError(err);
      await realSleep(200 * (i + 1));
    }
  }
  throw toAppError(new Error('the outcome of a write is unknown'));
}
