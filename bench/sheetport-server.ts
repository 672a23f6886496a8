/**
 * Benchmark targets (b) and (c): the real SheetPort service in its own process, on a temp data dir of its own.
 * Generates two workbooks (5,000 and 100,000 rows), registers them and a read key through the stores, starts
 * the service exactly as `sheetport serve` does (its V8 heap sizing first), warms the in-memory copy with one request
 * per tab, and reports the URL, paths and key to the parent over IPC. The temp dir is removed on exit.
 */
// First, as `sheetport serve` does: V8's heap sizing before the server's modules load.
import '../server/small-footprint-first.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { rateLimit } from '../server/http/rate-limit.ts';
import { startServer } from '../server/index.ts';
import { RateLimiter } from '../server/limits/rate-limiter.ts';
import { openDatabase } from '../server/store/db.ts';
import { sqliteRepositoriesOver } from '../server/store/sqlite-repositories.ts';
import { prepareDataDir } from './bench-data-dir.ts';
import { answerCpuQuestions, profileServing } from './cpu-profile.ts';
import { generateRows, LARGE_ROWS, SEARCH, SMALL_ROWS, SORT, TAB, writeOrdersWorkbook } from './data.ts';
import type { ChildMessage } from './protocol.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-bench-'));
let cleanup = async (): Promise<void> => {
  rmSync(dataDir, { recursive: true, force: true });
};

const send = (message: ChildMessage) => process.send?.(message);
const ms = (since: number) => `${Math.round(performance.now() - since)} ms`;

async function main(): Promise<void> {
  const notes: string[] = [];
  let t = performance.now();
  const small = path.join(dataDir, 'orders-5k.xlsx');
  const large = path.join(dataDir, 'orders-100k.xlsx');
  await writeOrdersWorkbook(small, generateRows(SMALL_ROWS));
  await writeOrdersWorkbook(large, generateRows(LARGE_ROWS));
  notes.push(`generated ${SMALL_ROWS} + ${LARGE_ROWS} row workbooks with ExcelJS in ${ms(t)}`);

  const {
    userKeys: [smallKey, largeKey],
    key,
  } = await prepareDataDir(dataDir, [small, large], 'bench');

  const service = await startServer({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    // BENCH_AA=1: both services without limits, an A/A run that shows the method's own noise and bias.
    rateLimits: process.env.BENCH_AA !== '1',
    log: (m, e) => console.error(m, e),
  });
  // The same service with rate limiting off, on the same data dir: the limiter's cost is (e) against (b).
  const unlimited = await startServer({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    rateLimits: false,
    log: (m, e) => console.error(m, e),
  });
  cleanup = async () => {
    await service.stop();
    await unlimited.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  const tab = encodeURIComponent(TAB);
  const targets = {
    list5k: `/api/spreadsheets/${smallKey}/${tab}?limit=100`,
    search100k: `/api/spreadsheets/${largeKey}/${tab}?search=${encodeURIComponent(SEARCH)}&sort=${encodeURIComponent(SORT)}&limit=100`,
    // {n} is replaced per request by the parent, so no two requests share a search (no filter-cache hits).
    searchCold100k: `/api/spreadsheets/${largeKey}/${tab}?search=Order%20ID:{n}&sort=${encodeURIComponent(SORT)}&limit=100`,
    list5kCold: `/api/spreadsheets/${smallKey}/${tab}?limit=100&offset={n}`,
    list5kNoLimits: `${unlimited.url}/api/spreadsheets/${smallKey}/${tab}?limit=100`,
  };
  const headers = { authorization: `Bearer ${key}` };

  // Warm the in-memory copy: the first request of each tab reads the workbook into memory.
  for (const [name, target] of Object.entries(targets)) {
    t = performance.now();
    const url = target.startsWith('http') ? target : service.url + target;
    const res = await fetch(url.replace('{n}', '0'), { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`warm-up ${name}: HTTP ${res.status} ${body.slice(0, 300)}`);
    notes.push(`first request ${name} (reads the workbook into the in-memory copy): ${ms(t)}`);
  }

  // The first reads start work behind them (each tab's first change recording, its baseline stored and read
  // back): a case measured meanwhile measures that work too. The service is ready once its CPU has settled.
  t = performance.now();
  await cpuSettled();
  notes.push(`start-up work behind the first reads settled in ${ms(t)}`);

  // BENCH_CPU_PROFILE=<file>: profile only the serving phase (not the workbook generation and first read).
  cleanup = await profileServing(cleanup, notes);

  // CPU time on demand: the rate limiter's cost is measured as CPU per request, which the VM's drifting speed
  // disturbs far less than requests per second.
  answerCpuQuestions(send);
  process.on('message', (m: { type?: string }) => {
    if (m.type === 'limiter-cost?')
      void limiterMicros().then((micros) => send({ type: 'limiter-cost', micros }));
  });
  send({ type: 'ready', url: service.url, targets, headers, notes });
}

/** Resolves once this process spends under a tenth of a core over a quarter second (at most 60 s). */
async function cpuSettled(): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, 250));
    const { user, system } = process.cpuUsage(before);
    if (user + system < 25_000) return;
  }
}

/**
 * The rate limiter's own CPU per request, measured in place: the real step (check, usage count, the eight
 * headers) run 200,000 times on fresh Node response objects, each awaited to its end, minus the cost of
 * creating those objects and of one await. Awaited one by one: started all at once, their continuations would
 * run after the timing, unmeasured, and then stall the server for seconds as the next case begins.
 */
async function limiterMicros(): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-bench-limiter-'));
  const db = openDatabase(dir);
  try {
    const limiter = new RateLimiter(sqliteRepositoriesOver(db, dir).usage, () => Date.now());
    const limit = rateLimit(limiter);
    const key = { id: 'key_bench', plan: 'enterprise', perSecond: 1e9, daily: 1e12 };
    const caller = { key: key as never, subject: key.id };
    const req = new http.IncomingMessage(new net.Socket());
    const N = 200_000;
    const run = async (withLimiter: boolean) => {
      const started = performance.now();
      for (let i = 0; i < N; i++) {
        const res = new http.ServerResponse(req);
        if (withLimiter) await limit(caller, res as never);
        else await undefined;
      }
      return ((performance.now() - started) * 1000) / N;
    };
    await run(true); // warm up the JIT
    return Math.max(0, (await run(true)) - (await run(false)));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  cleanup().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);

main().catch((err: unknown) => {
  send({ type: 'failed', error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  stop();
});
