/**
 * Team mode's owner per spreadsheet against a real PostgreSQL: two instances (two PgOwnership, each with its own
 * pools) on one database. One owns a spreadsheet at a time; a dead owner's lease lapses and the other takes it;
 * `exclusive` puts both instances' work on one spreadsheet one after another.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppError } from '../../server/errors.ts';
import type { Lease } from '../../server/repositories/ownership.ts';
import { PgOwnership } from '../../server/store-pg/ownership.ts';
import { openPool, type Pool } from '../../server/store-pg/pool.ts';
import { teamDatabase } from '../helpers/team-database.ts';

const TTL = 900;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Two instances on one fresh database, each with its own pool. */
async function twoInstances(ttlMs = TTL) {
  const { url, pool } = await teamDatabase();
  cleanups.push(() => pool.end());
  const instance = (name: string) => {
    const own = openPool(url);
    const ownership = new PgOwnership({ pool: own, databaseUrl: url, instanceId: name, ttlMs });
    cleanups.push(() => own.end());
    cleanups.push(() => ownership.close());
    return { pool: own, ownership };
  };
  return { url, admin: pool, a: instance('instance-a'), b: instance('instance-b') };
}

/** Asks for the lease every `everyMs` until it is granted; resolves with it and when (performance.now()). */
async function acquireWhenFree(ownership: PgOwnership, id: string, everyMs: number, deadlineMs: number) {
  const until = performance.now() + deadlineMs;
  while (performance.now() < until) {
    const lease = await ownership.acquire(id);
    if (lease) return { lease, at: performance.now() };
    await sleep(everyMs);
  }
  throw new Error(`no lease for ${id} within ${deadlineMs} ms`);
}

describe('PgOwnership leases', () => {
  it('grants a spreadsheet to one instance at a time; the other gets null, also after renewals', async () => {
    const { a, b, admin } = await twoInstances();
    const lease = (await a.ownership.acquire('wb_1')) as Lease;
    expect(lease.spreadsheetId).toBe('wb_1');
    expect(await b.ownership.acquire('wb_1')).toBeNull();
    expect(await a.ownership.acquire('wb_1')).toBeNull(); // the holder asks once and reuses its lease
    // Past the TTL the renewal timer has kept it: still a's.
    await sleep(TTL * 2);
    expect(await b.ownership.acquire('wb_1')).toBeNull();
    expect(await a.ownership.renew(lease)).toBe(true);
    expect(lease.lost.aborted).toBe(false);
    const { rows } = await admin.query('SELECT holder, expires_at > now() AS live FROM spreadsheet_leases');
    expect(rows).toEqual([{ holder: 'instance-a', live: true }]);
    // Another spreadsheet is free for b.
    expect(await b.ownership.acquire('wb_2')).not.toBeNull();
  });

  it('lets the other instance in on release, with the reason given', async () => {
    const { a, b } = await twoInstances();
    const lease = (await a.ownership.acquire('wb_1')) as Lease;
    expect(await b.ownership.acquire('wb_1')).toBeNull();
    await a.ownership.release(lease);
    const released = performance.now();
    expect(lease.lost.aborted).toBe(true);
    expect((lease.lost.reason as AppError).code).toBe('conflict');
    expect(await a.ownership.renew(lease)).toBe(false);
    // b asked a moment ago and was refused: it asks again after one renew period, and gets it then.
    const taken = await acquireWhenFree(b.ownership, 'wb_1', 20, TTL);
    expect(taken.at - released).toBeLessThan(TTL / 3 + 1000);
    await a.ownership.release(lease); // harmless on a lease lost already
  });

  it('after the owner dies without releasing, the other takes over within the TTL plus one renew period', async () => {
    const { a, b } = await twoInstances();
    const lease = (await a.ownership.acquire('wb_1')) as Lease;
    await sleep(TTL); // renewed a few times
    // Instance a dies: its database connections go, nothing is released.
    await a.pool.end();
    const died = performance.now();
    expect(await b.ownership.acquire('wb_1')).toBeNull(); // its last renewal still stands
    const period = TTL / 3;
    const taken = await acquireWhenFree(b.ownership, 'wb_1', period, TTL * 10);
    const waited = taken.at - died;
    // Not before a's last renewal lapsed, and within TTL + renew period (+ the statements' own time).
    expect(waited).toBeGreaterThan(TTL - period - 100);
    expect(waited).toBeLessThan(TTL + period + 1000);
    // a gave the lease up on its own before b could take it, with the write's answer as its reason.
    expect(lease.lost.aborted).toBe(true);
    expect((lease.lost.reason as AppError).message).toMatch(/no longer owns spreadsheet "wb_1"/);
  });

  it('fires lost on the holder whose row another instance took, and renew says false', async () => {
    const { a, b, admin } = await twoInstances();
    const lease = (await a.ownership.acquire('wb_1')) as Lease;
    // As if a had stalled past its TTL: the row lapses and b takes it.
    await admin.query("UPDATE spreadsheet_leases SET expires_at = now() - interval '1 second'");
    expect(await b.ownership.acquire('wb_1')).not.toBeNull();
    await sleep(TTL / 3); // past the last confirmation's period: renew asks the database
    expect(await a.ownership.renew(lease)).toBe(false);
    expect(lease.lost.aborted).toBe(true);
    expect(await a.ownership.acquire('wb_1')).toBeNull();
  });

  it('loses a lease on its renewal timer once another instance took the row', async () => {
    const { a, b, admin } = await twoInstances();
    const lease = (await a.ownership.acquire('wb_1')) as Lease;
    await admin.query("UPDATE spreadsheet_leases SET expires_at = now() - interval '1 second'");
    expect(await b.ownership.acquire('wb_1')).not.toBeNull();
    await expect.poll(() => lease.lost.aborted, { timeout: TTL * 3 }).toBe(true);
  });
});

describe('PgOwnership.exclusive', () => {
  it('never runs two instances’ work on one spreadsheet at once', async () => {
    const { a, b } = await twoInstances();
    let inside = 0;
    let most = 0;
    let done = 0;
    const work = async () => {
      inside++;
      most = Math.max(most, inside);
      await sleep(2 + Math.random() * 5); // real time passes while it is held
      inside--;
      done++;
    };
    // Three loops per instance, each on its own lock connection, all on one spreadsheet.
    const loop = async (ownership: PgOwnership) => {
      for (let i = 0; i < 15; i++) await ownership.exclusive('wb_1', work);
    };
    await Promise.all([a, a, a, b, b, b].map(({ ownership }) => loop(ownership)));
    expect(done).toBe(90);
    expect(most).toBe(1);
  });

  it('runs work on different spreadsheets at the same time', async () => {
    const { a, b } = await twoInstances();
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    const first = a.ownership.exclusive('wb_1', () => held);
    // b gets wb_2 while a holds wb_1.
    expect(await b.ownership.exclusive('wb_2', async () => 'in')).toBe('in');
    release();
    await first;
  });

  it('unlocks when the work throws, and hands the error on', async () => {
    const { a, b } = await twoInstances();
    await expect(
      a.ownership.exclusive('wb_1', async () => {
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    expect(await b.ownership.exclusive('wb_1', async () => 42)).toBe(42);
  });

  it('is released by PostgreSQL when the holding connection dies mid-work', async () => {
    const { a, b, admin } = await twoInstances();
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let entered = false;
    const first = a.ownership.exclusive('wb_1', async () => {
      entered = true;
      await held;
      return 'a finished';
    });
    await expect.poll(() => entered).toBe(true);
    // b waits for the lock while a holds it ...
    let bIn = false;
    const second = b.ownership.exclusive('wb_1', async () => {
      bIn = true;
    });
    await sleep(200);
    expect(bIn).toBe(false);
    // ... until a's lock connection dies: its session's lock goes with it.
    await admin.query(
      `SELECT pg_terminate_backend(l.pid) FROM pg_locks l
       WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_backend_pid()`,
    );
    await second;
    expect(bIn).toBe(true);
    release();
    expect(await first).toBe('a finished');
  });

  it('refuses with the contract’s error, changing nothing, when the database cannot be reached', async () => {
    const { url } = await teamDatabase().then((d) => {
      cleanups.push(() => d.pool.end());
      return d;
    });
    const dead = new URL(url);
    dead.port = '1'; // nothing listens there
    const pool = new pg.Pool({ connectionString: dead.toString() }) as Pool;
    cleanups.push(() => pool.end());
    const ownership = new PgOwnership({ pool, databaseUrl: dead.toString(), instanceId: 'x', ttlMs: TTL });
    cleanups.push(() => ownership.close());
    let ran = false;
    const error = await ownership
      .exclusive('wb_1', async () => {
        ran = true;
      })
      .catch((e: AppError) => e);
    expect(ran).toBe(false);
    expect(error).toMatchObject({ code: 'internal_error', status: 500 });
    expect((error as AppError).message).toMatch(/team database could not be reached/);
  });
});
