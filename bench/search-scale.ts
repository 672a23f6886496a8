/**
 * `npm run bench:search`: first-time searches over Excel's largest sheet. A real `sheetport serve` on a
 * 1,048,575-row, 10-column workbook (bench/scale), autocannon with 10 connections, and every request a search
 * no earlier request made, so neither the page cache nor the filter cache can answer: the cost of scanning.
 *
 *   search (text)          search=Email:{first}.{last}{k}  a substring, case and accents folded (~70 rows each)
 *   search (number)        search=Order ID:{n}             a substring of a number column's text form
 *   search_exact (text)    search_exact=Email:{address}    the whole value, as it is (~10 rows each)
 *   search_exact (number)  search_exact=Order ID:{n}       one row each
 *
 * Also the resident memory of the server: settled after the first read, and settled after the searches (the
 * per-column search text they build stays with the snapshot).
 *
 *   node bench/search-scale.ts [checkout ...]
 *
 * Each argument is a checkout whose bin/sheetport.js is run (default: this one); several run in turn on the same
 * workbook, so `A B A` compares two trees with the drift visible. The workbook is cached in the OS temp dir.
 * Environment: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 2), BENCH_CONNECTIONS (default 10),
 * BENCH_ROWS (default 1,048,575), BENCH_CPU_PROF (a directory: the server runs with --cpu-prof into it).
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { seededRandom } from '../server/lib/seeded-random.ts';
import { SCALE_COLUMNS } from './scale/scale-data.ts';
import { cli, readKey, scaleWorkbook, serve, TAB } from './scale-serve.ts';

const HERE = path.resolve(import.meta.dirname, '..');
const env = (name: string, fallback: number): number => Number(process.env[name] || fallback);
const ROWS = env('BENCH_ROWS', 1_048_575);
const DURATION = env('BENCH_DURATION', 10);
const WARMUP = env('BENCH_WARMUP', 2);
const CONNECTIONS = env('BENCH_CONNECTIONS', 10);
/** Names as bench/data.ts makes them (the e-mail is `first.last{0..99}@example.com`, lower case). */
const FIRST = [
  'ada',
  'grace',
  'alan',
  'edsger',
  'barbara',
  'donald',
  'margaret',
  'ken',
  'radia',
  'linus',
  'frances',
  'tim',
];
const LAST = [
  'lovelace',
  'hopper',
  'turing',
  'dijkstra',
  'liskov',
  'knuth',
  'hamilton',
  'thompson',
  'perlman',
  'torvalds',
  'allen',
  'berners-lee',
];

/** Query strings, a new one on every call (seeded, so every run and every tree asks the same sequence). */
function caseQueries(): Record<string, () => string> {
  const rnd = seededRandom(7);
  const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)]!;
  const address = () => `${pick(FIRST)}.${pick(LAST)}${Math.floor(rnd() * 100)}`;
  const q = (parameter: string, field: string, value: string) =>
    `${parameter}=${encodeURIComponent(`${field}:${value}`)}&limit=100`;
  return {
    'search (text)': () => q('search', 'Email', address()),
    'search (number)': () => q('search', 'Order ID', String(100_001 + Math.floor(rnd() * ROWS))),
    'search_exact (text)': () => q('search_exact', 'Email', `${address()}@example.com`),
    'search_exact (number)': () => q('search_exact', 'Order ID', String(100_001 + Math.floor(rnd() * ROWS))),
  };
}

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round(kb / 1024);
}

/** CPU time (user + system) the process has used, in ms: per request it is steadier than requests/s on a busy
 * machine, where other processes take turns on the cores. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

/**
 * RSS once it has stopped falling: V8 keeps the pages a burst freed until its memory reducer runs, after 8 or
 * more quiet seconds (server/small-footprint.ts), so this waits 12 s, then until 3 s pass without a change.
 */
async function settledRssMb(pid: number): Promise<number> {
  await sleep(12_000);
  let last = rssMb(pid);
  let still = 0;
  for (let i = 0; i < 30 && still < 3; i++) {
    await sleep(1000);
    const now = rssMb(pid);
    still = Math.abs(now - last) < 2 ? still + 1 : 0;
    last = now;
  }
  return last;
}

interface CaseResult {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  firstMs: number;
  cpuPerRequest: number;
}

interface TreeResult {
  tree: string;
  firstReadMs: number;
  rssLoaded: number;
  rssAfter: number;
  cases: CaseResult[];
}

async function runTree(tree: string, file: string): Promise<TreeResult> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-search-scale-'));
  let server: ChildProcess | undefined;
  try {
    const userKey = (await cli(tree, dataDir, 'connect', file)).user_key as string;
    const key = await readKey(tree, dataDir);
    const started = await serve(tree, dataDir);
    server = started.child;
    const headers = { authorization: `Bearer ${key}` };
    const base = `${started.url}/api/spreadsheets/${userKey}/${TAB}`;
    let t = performance.now();
    const first = await fetch(`${base}?limit=100`, { headers });
    if (first.status !== 200) throw new Error(`first read: HTTP ${first.status} ${await first.text()}`);
    await first.arrayBuffer();
    const firstReadMs = performance.now() - t;
    const rssLoaded = await settledRssMb(server.pid!);

    const cases: CaseResult[] = [];
    for (const [name, next] of Object.entries(caseQueries())) {
      // The first search of a column builds its search text (kept with the snapshot): not what is measured.
      t = performance.now();
      const warm = await fetch(`${base}?${next()}`, { headers });
      if (warm.status !== 200) throw new Error(`${name}: HTTP ${warm.status} ${await warm.text()}`);
      await warm.arrayBuffer();
      const firstMs = performance.now() - t;
      const requests = [
        {
          setupRequest: (req: { path: string }) => ({ ...req, path: `${new URL(base).pathname}?${next()}` }),
        },
      ];
      const options = { url: base, connections: CONNECTIONS, headers, timeout: 30, requests };
      await autocannon({ ...options, duration: WARMUP });
      const cpuBefore = cpuMs(server.pid!);
      const r = await autocannon({ ...options, duration: DURATION });
      const cpuPerRequest = (cpuMs(server.pid!) - cpuBefore) / r.requests.total;
      const errors = r.errors + r.timeouts + r.non2xx;
      cases.push({
        name,
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        errors,
        firstMs,
        cpuPerRequest,
      });
      console.log(
        `  ${name.padEnd(16)} ${r.requests.average.toFixed(0).padStart(6)} req/s  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  CPU ${cpuPerRequest.toFixed(1)} ms/request${errors ? `  ${errors} ERRORS` : ''}  (the column's first search: ${Math.round(firstMs)} ms)`,
      );
    }
    const rssAfter = await settledRssMb(server.pid!);
    return { tree, firstReadMs, rssLoaded, rssAfter, cases };
  } finally {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const file = scaleWorkbook(ROWS);
const trees = process.argv.length > 2 ? process.argv.slice(2).map((t) => path.resolve(t)) : [HERE];
const results: TreeResult[] = [];
console.log(
  `${ROWS.toLocaleString('en-US')} rows x ${SCALE_COLUMNS.length} columns; ${CONNECTIONS} connections, ${DURATION} s per case; ${os.cpus().length} cores`,
);
for (const tree of trees) {
  console.log(`${tree}:`);
  const r = await runTree(tree, file);
  console.log(
    `  first read ${Math.round(r.firstReadMs)} ms; RSS settled ${r.rssLoaded} MB after it, ${r.rssAfter} MB after the searches`,
  );
  results.push(r);
}
console.log(
  '\n| tree | case | requests/s | p50 | p99 | server CPU per request | first search of the column |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |',
);
for (const r of results)
  for (const c of r.cases)
    console.log(
      `| ${path.basename(r.tree)} | ${c.name} | ${c.rps.toFixed(0)} | ${c.p50} ms | ${c.p99} ms | ${c.cpuPerRequest.toFixed(1)} ms | ${Math.round(c.firstMs)} ms |`,
    );
console.log('\n| tree | first read | RSS after it | RSS after the searches |\n| --- | ---: | ---: | ---: |');
for (const r of results)
  console.log(
    `| ${path.basename(r.tree)} | ${Math.round(r.firstReadMs)} ms | ${r.rssLoaded} MB | ${r.rssAfter} MB |`,
  );
if (results.some((r) => r.cases.some((c) => c.errors > 0))) process.exitCode = 1;
