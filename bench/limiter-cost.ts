/**
 * The limiter's cost per request (not part of npm test). Run: node bench/limiter-cost.ts
 * Median and p95 latency of one `PgSharedLimits.take` (team mode: one round trip to the SQL function) on a
 * temporary local PostgreSQL cluster, or on SHEETPORT_DATABASE_URL's database when set (it must be migrated, or
 * empty), and of one `RateLimiter.check` counting in memory: 2,000 calls each, one at a time, for one subject at
 * Pro's burst (refusals included, as a busy key has them). Run A-B-A (PostgreSQL, memory, PostgreSQL): the
 * machine's other work makes single runs noisy, and the two PostgreSQL runs show by how much.
 */
import { PLAN_LIMITS } from '../server/limits/plans.ts';
import { RateLimiter } from '../server/limits/rate-limiter.ts';
import type { DayUsage, Usage } from '../server/repositories/usage.ts';
import { migrate } from '../server/store-pg/migrate.ts';
import { openPool } from '../server/store-pg/pool.ts';
import { PgSharedLimits } from '../server/store-pg/shared-limits.ts';
import { startCluster } from '../test/helpers/postgres-cluster.ts';
import { teamMigrations } from '../test/helpers/team-database.ts';

const CALLS = 2000;

async function timed(call: () => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < 100; i++) await call(); // warm up
  const ms: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await call();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(CALLS / 2)] as number, p95: ms[Math.floor(CALLS * 0.95)] as number };
}

/** A usage counter in memory, so the in-memory run measures the limiter alone. */
function memoryUsage(): Usage {
  const days = new Map<string, DayUsage>();
  const of = (s: string) => {
    const d = days.get(s) ?? { day: 'today', requests: 0, refusedPerSecond: 0, refusedDaily: 0 };
    days.set(s, d);
    return d;
  };
  return {
    today: async (s) => of(s),
    countRequest: (s) => void of(s).requests++,
    countRefused: (s, _n, limit) =>
      void (limit === 'daily' ? of(s).refusedDaily++ : of(s).refusedPerSecond++),
    flush: async () => {},
    history: async () => [],
  };
}

const cluster = process.env.SHEETPORT_DATABASE_URL ? null : await startCluster();
const url = process.env.SHEETPORT_DATABASE_URL ?? (cluster?.adminUrl as string);
const pool = openPool(url);
try {
  await migrate(pool, teamMigrations());
  const shared = new PgSharedLimits(pool);
  const memory = new RateLimiter(memoryUsage(), Date.now);
  const pro = PLAN_LIMITS.pro;
  const line = (name: string, r: { median: number; p95: number }) =>
    console.log(`${name.padEnd(34)} median ${r.median.toFixed(3)} ms   p95 ${r.p95.toFixed(3)} ms`);
  // PostgreSQL, memory, PostgreSQL: the two PostgreSQL runs show how much the machine's other work moved it.
  for (const round of ['A', 'B', 'A']) {
    if (round === 'B') line('in memory (RateLimiter.check)', await timed(() => memory.check('bench', pro)));
    else {
      const take = () =>
        shared.take({ subject: 'bench', ...pro, daily: 1e12, nowMs: Date.now(), windowMs: 1000 });
      line('PostgreSQL (PgSharedLimits.take)', await timed(take));
    }
  }
} finally {
  await pool.end();
  cluster?.stop();
}
