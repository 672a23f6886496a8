import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { limitsOf, PLAN_LIMITS } from '../../server/limits/plans.ts';
import { RateLimiter } from '../../server/limits/rate-limiter.ts';
import type { SharedLimits } from '../../server/repositories/shared-limits.ts';
import type { Usage } from '../../server/repositories/usage.ts';
import { openDatabase } from '../../server/store/db.ts';
import { sqliteRepositoriesOver } from '../../server/store/sqlite-repositories.ts';
import type { Pool } from '../../server/store-pg/pool.ts';
import { PgSharedLimits } from '../../server/store-pg/shared-limits.ts';
import { teamDatabase } from '../helpers/team-database.ts';

const NOON = Date.UTC(2026, 0, 15, 12, 0, 0);
let dir: string;
let db: Database.Database;
let now: number;
let limiter: RateLimiter;
let usage: Usage;
/** Team mode's limits on a fresh database; undefined for the limiter that counts in memory. */
let shared: SharedLimits | undefined;
let pool: Pool | null = null;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-limits-'));
  db = openDatabase(dir);
  now = NOON;
  usage = sqliteRepositoriesOver(db, dir).usage;
});
afterEach(async () => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
  await pool?.end();
  pool = null;
});

const FREE = PLAN_LIMITS.free;

/** The same rules whether the limiter counts in memory or takes each request in PostgreSQL (team mode). */
describe.each([
  ['in memory', false],
  ['in PostgreSQL', true],
] as const)('limits counted %s', (_name, team) => {
  beforeEach(async () => {
    shared = undefined;
    if (team) {
      const database = await teamDatabase();
      pool = database.pool;
      shared = new PgSharedLimits(pool);
    }
    limiter = new RateLimiter(usage, () => now, shared);
  });

  describe('rolling one-second window', () => {
    it('refuses the 11th request at 0.95 s and allows it at 1.01 s after the first', async () => {
      for (let i = 0; i < 10; i++) {
        now = NOON + i * 100; // 0 .. 900 ms
        expect((await limiter.check('k', FREE)).allowed).toBe(true);
      }
      now = NOON + 950;
      const refused = await limiter.check('k', FREE);
      expect(refused).toMatchObject({ allowed: false, refusedBy: 'per_second', retryAfter: 1, remaining: 0 });
      now = NOON + 1010;
      const allowed = await limiter.check('k', FREE);
      expect(allowed.allowed).toBe(true);
      // the window now holds the requests at 100..900 and 1010: nine plus one
      expect(allowed.remaining).toBe(0);
      expect(allowed.resetAtMs).toBe(NOON + 100 + 1000);
    });

    it('reports remaining and reset exactly at each step', async () => {
      for (let i = 0; i < 3; i++) {
        now = NOON + i * 200;
        const d = await limiter.check('k', FREE);
        expect(d.remaining).toBe(10 - (i + 1));
        expect(d.resetAtMs).toBe(NOON + 1000); // the oldest request leaves at first + 1 s
        expect(d.dailyRemaining).toBe(5000 - (i + 1));
        expect(d.dailyResetAtMs).toBe(Date.UTC(2026, 0, 16));
      }
    });

    it('does not count refused requests against either limit', async () => {
      for (let i = 0; i < 10; i++) await limiter.check('k', FREE);
      for (let i = 0; i < 50; i++) expect((await limiter.check('k', FREE)).allowed).toBe(false);
      expect(await usage.today('k', now)).toMatchObject({
        requests: 10,
        refusedPerSecond: 50,
        refusedDaily: 0,
      });
      now += 1000;
      expect(await limiter.check('k', FREE)).toMatchObject({
        allowed: true,
        remaining: 9,
        dailyRemaining: 4989,
      });
    });

    it('keeps keys apart', async () => {
      for (let i = 0; i < 10; i++) await limiter.check('a', FREE);
      expect((await limiter.check('a', FREE)).allowed).toBe(false);
      expect((await limiter.check('b', FREE)).allowed).toBe(true);
    });
  });

  describe('daily quota', () => {
    const SMALL = { perSecond: 100, daily: 3 };

    it('refuses past the quota until midnight UTC, with retry_after in seconds to midnight', async () => {
      for (let i = 0; i < 3; i++) expect((await limiter.check('k', SMALL)).allowed).toBe(true);
      now = Date.UTC(2026, 0, 15, 23, 59, 30, 500);
      const refused = await limiter.check('k', SMALL);
      expect(refused).toMatchObject({
        allowed: false,
        refusedBy: 'daily',
        retryAfter: 30,
        dailyRemaining: 0,
      });
      now = Date.UTC(2026, 0, 16, 0, 0, 0, 1);
      expect(await limiter.check('k', SMALL)).toMatchObject({ allowed: true, dailyRemaining: 2 });
    });

    it('says daily when both limits are exhausted', async () => {
      const tight = { perSecond: 2, daily: 2 };
      await limiter.check('k', tight);
      await limiter.check('k', tight);
      expect((await limiter.check('k', tight)).refusedBy).toBe('daily');
    });

    it('survives a restart: the day’s counts are read back', async () => {
      for (let i = 0; i < 3; i++) await limiter.check('k', SMALL);
      await usage.flush();
      const restarted = new RateLimiter(sqliteRepositoriesOver(db, dir).usage, () => now, shared);
      expect(await restarted.check('k', SMALL)).toMatchObject({ allowed: false, refusedBy: 'daily' });
    });

    it('keeps a 30-day history with refused counts by limit type', async () => {
      await limiter.check('k', { perSecond: 1, daily: 10 });
      await limiter.check('k', { perSecond: 1, daily: 10 });
      now += 86_400_000;
      await limiter.check('k', { perSecond: 1, daily: 10 });
      const history = await usage.history('k', now);
      expect(history).toEqual([
        { day: '2026-01-16', requests: 1, refusedPerSecond: 0, refusedDaily: 0 },
        { day: '2026-01-15', requests: 1, refusedPerSecond: 1, refusedDaily: 0 },
      ]);
    });
  });

  it('starts a fresh window when the plan changes', async () => {
    for (let i = 0; i < 10; i++) await limiter.check('k', FREE);
    expect((await limiter.check('k', FREE)).allowed).toBe(false);
    const bigger = { perSecond: 20, daily: 5000 };
    expect(await limiter.check('k', bigger)).toMatchObject({ allowed: true, remaining: 19, dailyUsed: 11 });
  });

  it('enforces Enterprise custom numbers', async () => {
    const custom = limitsOf({ plan: 'enterprise', perSecond: 3, daily: 1000 });
    for (let i = 0; i < 3; i++) expect((await limiter.check('e', custom)).allowed).toBe(true);
    expect((await limiter.check('e', custom)).allowed).toBe(false);
  });

  it('refuses every request of a plan with no burst, counting it refused', async () => {
    const none = { perSecond: 0, daily: 10 };
    expect(await limiter.check('k', none)).toMatchObject({ allowed: false, refusedBy: 'per_second' });
    expect(await usage.today('k', now)).toMatchObject({ requests: 0, refusedPerSecond: 1 });
  });
});

describe('plans', () => {
  it('Free 10/s 5,000/day, Pro 100/s 500,000/day, Enterprise per key', () => {
    expect(limitsOf({ plan: 'free', perSecond: null, daily: null })).toEqual({ perSecond: 10, daily: 5000 });
    expect(limitsOf({ plan: 'pro', perSecond: null, daily: null })).toEqual({
      perSecond: 100,
      daily: 500_000,
    });
    expect(limitsOf({ plan: 'enterprise', perSecond: 250, daily: 2_000_000 })).toEqual({
      perSecond: 250,
      daily: 2_000_000,
    });
  });
});

/** Team mode: instances with their own memory (and usage counters) take each request in one shared database. */
describe('limits counted for the whole team', () => {
  async function threeInstances() {
    const database = await teamDatabase();
    pool = database.pool;
    const limits = new PgSharedLimits(database.pool);
    return [1, 2, 3].map(() => new RateLimiter(sqliteRepositoriesOver(db, dir).usage, () => now, limits));
  }

  it('prunes windows idle for a minute and days older than a month; counting goes on', async () => {
    const [instance] = await threeInstances();
    const limits = new PgSharedLimits(pool as Pool);
    const quota = { perSecond: 5, daily: 100 };
    now = NOON - 40 * 86_400_000;
    await (instance as RateLimiter).check('old', quota);
    now = NOON;
    await (instance as RateLimiter).check('idle', quota);
    now = NOON + 59_000;
    await (instance as RateLimiter).check('busy', quota);
    await limits.prune(NOON + 60_000);
    const windows = await (pool as Pool).query('SELECT subject FROM limit_windows ORDER BY subject');
    expect(windows.rows).toEqual([{ subject: 'busy' }]);
    const days = await (pool as Pool).query('SELECT subject FROM limit_days ORDER BY subject');
    expect(days.rows).toEqual([{ subject: 'busy' }, { subject: 'idle' }]);
    now = NOON + 60_000;
    expect(await (instance as RateLimiter).check('idle', quota)).toMatchObject({
      allowed: true,
      remaining: 4,
      dailyUsed: 2,
    });
  });

  it('gives a Free key exactly 10 answers in a burst of 40 spread over three instances', async () => {
    const instances = await threeInstances();
    const burst = Array.from({ length: 40 }, (_, i) => {
      now = NOON + i; // within one second, each instance stamping its own requests
      return (instances[i % 3] as RateLimiter).check('k', FREE);
    });
    const decisions = await Promise.all(burst);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.filter((d) => d.refusedBy === 'per_second')).toHaveLength(30);
  });

  it('holds the daily quota across instances, exactly', async () => {
    const instances = await threeInstances();
    const quota = { perSecond: 1000, daily: 7 };
    const decisions = await Promise.all(
      Array.from({ length: 21 }, (_, i) => (instances[i % 3] as RateLimiter).check('k', quota)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(7);
    expect(decisions.filter((d) => d.refusedBy === 'daily')).toHaveLength(14);
    expect(Math.max(...decisions.map((d) => d.dailyUsed))).toBe(7);
  });
});
