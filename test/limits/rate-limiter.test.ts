import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { limitsOf, PLAN_LIMITS } from '../../server/limits/plans.ts';
import { RateLimiter } from '../../server/limits/rate-limiter.ts';
import { openDatabase } from '../../server/store/db.ts';
import { UsageStore } from '../../server/store/usage.ts';

const NOON = Date.UTC(2026, 0, 15, 12, 0, 0);
let dir: string;
let db: Database.Database;
let now: number;
let limiter: RateLimiter;
let usage: UsageStore;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-limits-'));
  db = openDatabase(dir);
  now = NOON;
  usage = new UsageStore(db);
  limiter = new RateLimiter(usage, () => now);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const FREE = PLAN_LIMITS.free;

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
    expect(refused).toMatchObject({ allowed: false, refusedBy: 'daily', retryAfter: 30, dailyRemaining: 0 });
    now = Date.UTC(2026, 0, 16, 0, 0, 0, 1);
    expect(await limiter.check('k', SMALL)).toMatchObject({ allowed: true, dailyRemaining: 2 });
  });

  it('says daily when both limits are exhausted', async () => {
    const tight = { perSecond: 2, daily: 2 };
    await limiter.check('k', tight);
    await limiter.check('k', tight);
    expect((await limiter.check('k', tight)).refusedBy).toBe('daily');
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

  it('enforces Enterprise custom numbers', async () => {
    const custom = limitsOf({ plan: 'enterprise', perSecond: 3, daily: 1000 });
    for (let i = 0; i < 3; i++) expect((await limiter.check('e', custom)).allowed).toBe(true);
    expect((await limiter.check('e', custom)).allowed).toBe(false);
  });
});
