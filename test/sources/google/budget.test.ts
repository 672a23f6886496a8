/**
 * The per-account Sheets budget on its own, driven by a manual clock: a rolling one-minute window per kind,
 * a write past it waits in the queue for the window to move, and one that would wait past the queue time (or
 * finds the queue full) is refused with 503 and the seconds until a slot frees.
 */
import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../server/errors.ts';
import { sharedCallsOf } from '../../../server/limits/shared-calls.ts';
import { QuotaBudget } from '../../../server/sources/google/budget.ts';
import { PgSharedLimits } from '../../../server/store-pg/shared-limits.ts';
import { ManualTimers } from '../../helpers/manual-timers.ts';
import { teamDatabase } from '../../helpers/team-database.ts';

function budget(timers: ManualTimers, queueMs: number, queueLength = 10): QuotaBudget {
  return new QuotaBudget(
    { readsPerMinute: 2, writesPerMinute: 1, queueMs, queueLength },
    () => timers.now,
    (ms) => new Promise((resolve) => timers.after(ms, resolve)),
  );
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('the Sheets budget of an account', () => {
  it('counts reads and writes apart, in a window that rolls', async () => {
    const timers = new ManualTimers();
    const b = budget(timers, 0);
    expect([await b.tryTake('read'), await b.tryTake('read'), await b.tryTake('read')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(await b.tryTake('write')).toBe(true);
    timers.advance(30_000);
    const refused = await b.take('read').catch((err: unknown) => err); // no queue time: refused at once
    expect(isAppError(refused) && refused.details.retry_after).toBe(30);
    timers.advance(30_000);
    expect(await b.tryTake('read')).toBe(true);
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

describe('the Sheets budget of an account in team mode', () => {
  it("is one budget for every instance: two instances together spend the account's reads once", async () => {
    const { url, pool } = await teamDatabase();
    try {
      const calls = sharedCallsOf(new PgSharedLimits(pool));
      const timers = new ManualTimers();
      const instance = () =>
        new QuotaBudget(
          { readsPerMinute: 5, writesPerMinute: 1, queueMs: 0, queueLength: 10 },
          () => timers.now,
          (ms) => new Promise((resolve) => timers.after(ms, resolve)),
          { calls, account: `acct-${url.slice(-6)}` },
        );
      const [a, b] = [instance(), instance()];
      const taken = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).tryTake('read')));
      expect(taken.filter(Boolean)).toHaveLength(5);
      expect(await a.tryTake('write')).toBe(true);
      const refused = await b.take('write').catch((err: unknown) => err);
      expect(isAppError(refused) && refused.details.retry_after).toBe(60);
      timers.advance(60_000);
      expect(await b.tryTake('read')).toBe(true);
    } finally {
      await pool.end();
    }
  });
});
