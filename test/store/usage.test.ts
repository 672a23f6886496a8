/**
 * Request counts per subject and UTC day (Usage), against SQLite and PostgreSQL: read back after a restart,
 * summed across processes or instances, and the history report. The limiter that reads them is
 * test/limits/rate-limiter.test.ts's.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../server/limits/rate-limiter.ts';
import { openTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

const NOON = Date.UTC(2026, 0, 15, 12, 0, 0);
const SMALL = { perSecond: 100, daily: 3 };

describe.each(STORE_KINDS)('Usage (%s)', (kind) => {
  let opened: TestStore;
  let now: number;
  let limiter: RateLimiter;

  beforeEach(async () => {
    opened = await openTestStore(kind);
    now = NOON;
    limiter = new RateLimiter(opened.usage, () => now);
  });
  afterEach(async () => {
    await opened.close();
  });

  it('survives a restart: counts flushed are read back', async () => {
    for (let i = 0; i < 3; i++) await limiter.check('k', SMALL);
    await opened.usage.flush();
    const restarted = new RateLimiter((await opened.again()).usage, () => now);
    expect(await restarted.check('k', SMALL)).toMatchObject({ allowed: false, refusedBy: 'daily' });
  });

  it('adds counts from two processes sharing a database', async () => {
    const other = (await opened.again()).usage;
    opened.usage.countRequest('k', now);
    other.countRequest('k', now);
    other.countRequest('k', now);
    await opened.usage.flush();
    await other.flush();
    expect((await (await opened.again()).usage.today('k', now)).requests).toBe(3);
  });

  it('adds the stored counts to ones made before they were read, and flushes only the new ones', async () => {
    opened.usage.countRequest('k', now);
    await opened.usage.flush();
    const other = (await opened.again()).usage;
    other.countRequest('k', now); // counted before anything was read
    other.countRefused('k', now, 'daily');
    expect(await other.today('k', now)).toMatchObject({ requests: 2, refusedDaily: 1 });
    await other.flush();
    await other.flush(); // nothing twice
    expect(await opened.usage.history('k', now)).toEqual([
      { day: '2026-01-15', requests: 2, refusedPerSecond: 0, refusedDaily: 1 },
    ]);
  });

  it('counts once when flushes overlap (the timer and a usage report at once)', async () => {
    for (let i = 0; i < 5; i++) opened.usage.countRequest('k', now);
    await Promise.all([opened.usage.flush(), opened.usage.history('k', now), opened.usage.flush()]);
    expect((await (await opened.again()).usage.today('k', now)).requests).toBe(5);
  });

  it('keeps a 30-day history with refused counts by limit type', async () => {
    await limiter.check('k', { perSecond: 1, daily: 10 });
    await limiter.check('k', { perSecond: 1, daily: 10 });
    now += 86_400_000;
    await limiter.check('k', { perSecond: 1, daily: 10 });
    const history = await opened.usage.history('k', now);
    expect(history).toEqual([
      { day: '2026-01-16', requests: 1, refusedPerSecond: 0, refusedDaily: 0 },
      { day: '2026-01-15', requests: 1, refusedPerSecond: 1, refusedDaily: 0 },
    ]);
    expect(await opened.usage.history('k', now + 30 * 86_400_000)).toEqual([]);
  });
});
