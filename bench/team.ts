/**
 * `npm run bench:team`: team mode on this machine, beside one machine's service, in one run.
 *
 *   reads   GET /api/spreadsheets/{userKey}/Orders?limit=100 on a 5,000-row tab, as requests/s and latency:
 *           (1) one instance on SQLite, (2) one instance on PostgreSQL, (3) three instances on PostgreSQL behind
 *           a round-robin balancer (bench/team-balancer.ts, in this process)
 *   writes  appends of one row, one after another (median and p95 of WRITES): SQLite against PostgreSQL
 *   limits  the same read on one PostgreSQL instance with rate limits on and off (A-B-B-A), and the shared
 *           limiter's round trip alone (median of 2,000 calls)
 *
 * Every instance is a real `sheetport serve` (bin/sheetport.js) with its own data dir; the database is a
 * temporary PostgreSQL cluster (Debian's postgresql package, as the suites start it) on loopback. A 2-core
 * machine runs the load generator, the balancer, PostgreSQL and three Node processes on the same two cores: the
 * three-instance figure shows the cost of sharing, not what three machines would serve (docs/performance.md).
 *
 * Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 10), BENCH_WRITES (default 100).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { startCluster } from '../test/helpers/postgres-cluster.ts';
import { generateRows, SMALL_ROWS, TAB, writeOrdersWorkbook } from './data.ts';
import { startBalancer } from './team-balancer.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const WRITES = Number(process.env.BENCH_WRITES ?? 100);
const BIN = new URL('../bin/sheetport.js', import.meta.url).pathname;
const SECRET_KEY = 'bench-team-secret-key-0123456789';

interface Instance {
  url: string;
  stop(): Promise<void>;
}

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')}: ${err}`))));
  });
}

/** Every instance started, stopped at the end whatever happens. */
const started = new Set<{ kill(signal: NodeJS.Signals): boolean }>();

function serve(dataDir: string, env: NodeJS.ProcessEnv, extra: string[] = []): Promise<Instance> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--port', '0', '--json', '--data-dir', dataDir, ...extra],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (!out.includes('\n')) return;
      const { url } = JSON.parse(out.split('\n')[0]!) as { url: string };
      resolve({
        url,
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
}

async function load(
  url: string,
  key: string,
): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const run = (duration: number) =>
    autocannon({ url, connections: CONNECTIONS, duration, headers: { authorization: `Bearer ${key}` } });
  await run(2); // warm-up
  const r = await run(DURATION);
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
  };
}

async function appends(base: string, key: string, userKey: string): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const started = performance.now();
    const res = await fetch(`${base}/api/spreadsheets/${userKey}/${TAB}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ 'Order ID': `bench-${i}`, Quantity: i }),
    });
    if (res.status !== 201) throw new Error(`append answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round(times[Math.floor(q * (times.length - 1))]! * 10) / 10;
  return { p50: at(0.5), p95: at(0.95) };
}

/** A data dir (SQLite) or a database (team mode) with the workbook connected and an unlimited key. */
async function prepare(root: string, name: string, env: NodeJS.ProcessEnv) {
  const file = path.join(root, `${name}.xlsx`);
  await writeOrdersWorkbook(file, generateRows(SMALL_ROWS));
  const dataDir = path.join(root, `${name}-0`);
  const connected = JSON.parse(await cli(['connect', file, '--json', '--data-dir', dataDir], env));
  const made = JSON.parse(
    await cli(
      [
        'keys',
        'create',
        '--scope',
        'read_write',
        '--plan',
        'enterprise',
        '--per-second',
        '1000000',
        '--daily',
        '1000000000',
        '--json',
        '--data-dir',
        dataDir,
      ],
      env,
    ),
  );
  return { dataDir, userKey: connected.user_key as string, key: made.key as string };
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'sheetport-bench-team-'));
  const cluster = await startCluster();
  const results: Record<string, unknown> = {};
  try {
    const adminUrl = new URL(cluster.adminUrl);
    const pgEnv = {
      SHEETPORT_DATABASE_URL: Object.assign(new URL(adminUrl), { pathname: '/postgres' }).toString(),
      SHEETPORT_SECRET_KEY: SECRET_KEY,
    };
    const single = await prepare(root, 'sqlite', {});
    const team = await prepare(root, 'team', pgEnv);
    const listPath = (userKey: string) => `/api/spreadsheets/${userKey}/${TAB}?limit=100`;

    const sqlite = await serve(single.dataDir, {});
    results.readsSqlite = await load(sqlite.url + listPath(single.userKey), single.key);
    results.writesSqlite = await appends(sqlite.url, single.key, single.userKey);
    await sqlite.stop();

    const one = await serve(team.dataDir, pgEnv);
    results.readsPostgres = await load(one.url + listPath(team.userKey), team.key);
    results.writesPostgres = await appends(one.url, team.key, team.userKey);
    const unlimited = await serve(path.join(root, 'team-nolimits'), pgEnv, ['--no-rate-limits']);
    const limitsOn: number[] = [];
    const limitsOff: number[] = [];
    for (const [target, into] of [
      [one, limitsOn],
      [unlimited, limitsOff],
      [unlimited, limitsOff],
      [one, limitsOn],
    ] as const) {
      into.push((await load(target.url + listPath(team.userKey), team.key)).rps);
    }
    results.limiter = { rpsOn: limitsOn, rpsOff: limitsOff };
    await unlimited.stop();
    results.limiterRoundTrip = await limiterRoundTrip(pgEnv.SHEETPORT_DATABASE_URL);

    const others = await Promise.all([1, 2].map((i) => serve(path.join(root, `team-${i}`), pgEnv)));
    const balancer = await startBalancer([one.url, ...others.map((o) => o.url)]);
    results.readsThreeBehindBalancer = await load(balancer.url + listPath(team.userKey), team.key);
    results.readsOneBehindBalancer = await (async () => {
      const solo = await startBalancer([one.url]);
      try {
        return await load(solo.url + listPath(team.userKey), team.key);
      } finally {
        await solo.close();
      }
    })();
    await balancer.close();
    await Promise.all([one, ...others].map((i) => i.stop()));
    console.log(JSON.stringify({ cores: os.cpus().length, duration: DURATION, ...results }, null, 2));
  } finally {
    for (const child of started) child.kill('SIGKILL');
    cluster.stop();
    await rm(root, { recursive: true, force: true });
  }
}

/** The shared limiter's round trip alone: median of 2,000 `take` calls on one key. */
async function limiterRoundTrip(databaseUrl: string): Promise<{ medianMs: number; p99Ms: number }> {
  const { openPgStore } = await import('../server/store-pg/pg-store.ts');
  const store = await openPgStore(
    { databaseUrl, secretKey: SECRET_KEY, leaseTtlMs: 5000 },
    { dataDir: await mkdtemp(path.join(os.tmpdir(), 'sheetport-bench-limits-')), log: () => {} },
  );
  try {
    const limits = store.team!.limits;
    const times: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const started = performance.now();
      await limits.take({
        subject: 'bench',
        perSecond: 1_000_000,
        daily: 1_000_000_000,
        nowMs: Date.now(),
        windowMs: 1000,
      });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return {
      medianMs: Math.round(times[1000]! * 1000) / 1000,
      p99Ms: Math.round(times[1980]! * 1000) / 1000,
    };
  } finally {
    await store.close();
  }
}

await main();
