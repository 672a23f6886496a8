/**
 * The per-account Sheets budget on its own, driven by a manual clock: a rolling one-minute window per kind,
 * a write past it waits in the queue for the window to move, and one that would wait past the queue time (or
 * finds the queue full) is refused with 503 and the seconds until a slot frees.
 */
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../server/errors.ts';
import { QuotaBudget } from '../../server/sources/google/budget.ts';
import { ManualTimers } from '../helpers/manual-timers.ts';

function budget(timers: ManualTimers, queueMs: number, queueLength = 10): QuotaBudget {
  return new QuotaBudget(
    { readsPerMinute: 2, writesPerMinute: 1, queueMs, queueLength },
    () => timers.now,
    (ms) => new Promise((resolve) => timers.after(ms, resolve)),
  );
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('the Sheets budget of an account', () => {
  it('counts reads and writes apart, in a window that rolls', () => {
    const timers = new ManualTimers();
    const b = budget(timers, 0);
    expect([b.tryTake('read'), b.tryTake('read'), b.tryTake('read')]).toEqual([true, true, false]);
    expect(b.tryTake('write')).toBe(true);
    timers.advance(30_000);
    expect(b.msUntilFree('read')).toBe(30_000);
    timers.advance(30_000);
    expect(b.tryTake('read')).toBe(true);
  });

  it('a write past the budget waits in the queue for the window to move', async () => {
    const timers = new ManualTimers();
    const b = budget(timers, 90_000);
    await b.take('write');
    let done = false;
    const waiting = b.take('write').then(() => {
      done = true;
    });
    await flush();
    timers.advance(59_000);
    await flush();
    expect(done).toBe(false);
    timers.advance(1_000);
    await waiting;
    expect(done).toBe(true);
  });

  it('refuses with 503 and Retry-After when the wait would pass the queue time, or the queue is full', async () => {
    const timers = new ManualTimers();
    const short = budget(timers, 5_000);
    await short.take('write');
    timers.advance(20_000);
    const refused = await short.take('write').catch((err: unknown) => err);
    expect(isAppError(refused) && refused.code).toBe('upstream_unavailable');
    expect(isAppError(refused) && refused.details.retry_after).toBe(40);

    const full = budget(timers, 90_000, 1);
    await full.take('write');
    const queued = full.take('write');
    const overflow = await full.take('write').catch((err: unknown) => err);
    expect(isAppError(overflow) && overflow.code).toBe('upstream_unavailable');
    timers.advance(60_000);
    await queued;
  });
});
