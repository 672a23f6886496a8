/**
 * SheetPort against json-server 0.17.4 (the local "REST API from a file" people reach for) on the same rows,
 * each in its own process, driven over loopback from this one (`node bench/vs-json-server.ts`).
 *
 * Both get the benchmark's Orders rows (bench/data.ts): SheetPort as two .xlsx workbooks (5,000 and 100,000 rows)
 * registered through the CLI and served by `sheetport serve`; json-server as two db.json files with the same rows,
 * one process each (json-server serves one file per process). Measured:
 * - first read of the 100,000-row data: SheetPort's first GET of the tab (the in-memory copy is filled on demand) and
 *   json-server's start to its first answer (it loads the whole file at start);
 * - a read of 100 rows of the 5,000-row data, 10 connections;
 * - appends of one row to the 5,000-row data with 2 connections (each answered once the file is written);
 * - appends of one row to the 100,000-row data, one at a time (p50 of 20);
 * - resident memory of each process once both data sets are loaded (each service has just answered its first
 *   reads), and again once they have been written to (after the cases above).
 * Targets (issue "surgical .xlsx engine"): append on 5,000 rows at or above json-server's throughput; append on
 * 100,000 rows within 1.5x json-server's time; first read of 100,000 rows at most 1.5 s; resident memory, both
 * times, no more than json-server's two processes together. The exit code is 1 when a target is missed.
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { builtCliEnv, cliMode } from './built-cli.ts';
import { generateRows, LARGE_ROWS, rowObjects, SMALL_ROWS, TAB, writeOrdersWorkbook } from './data.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CLI = path.join(ROOT, 'bin', 'sheetport.js');
const JSON_SERVER = path.join(ROOT, 'node_modules', 'json-server', 'lib', 'cli', 'bin.js');
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const exec = promisify(execFile);

interface Service {
  name: string;
  process: ChildProcess;
  url: string;
}

/** One new row per request: the same shape for both services. */
const NEW_ROW = JSON.stringify({
  'Order ID': 999_999,
  'Order No': 'SO-NEW',
  Customer: 'Ada Lovelace',
  Email: 'ada@example.com',
  Region: 'North',
  Product: 'Widget',
  Quantity: 2,
  'Unit Price': 12.5,
  Total: 25,
  Shipped: false,
});

async function sheetportCli(dataDir: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await exec(process.execPath, [CLI, '--data-dir', dataDir, ...args, '--json'], {
    env: { ...process.env, ...builtCliEnv() },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** Spawns a server and resolves once `ready` finds its URL in what it prints. */
async function startProcess(
  name: string,
  args: string[],
  ready: (out: string) => string | undefined,
): Promise<Service> {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...builtCliEnv() },
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    out += chunk;
  });
  for (;;) {
    const url = ready(out);
    if (url) return { name, process: child, url };
    if (child.exitCode !== null) throw new Error(`${name} exited: ${out}`);
    await once(child.stdout!, 'data');
  }
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  server.close();
  return port;
}

/** json-server on one db.json; the time from spawn to its first answer is its first read. */
async function startJsonServer(file: string): Promise<{ service: Service; firstReadMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [JSON_SERVER, '--port', String(port), '--quiet', file], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      const res = await fetch(`${url}/orders?_limit=100`);
      if (res.ok) {
        await res.arrayBuffer();
        break;
      }
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error('json-server exited');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { service: { name: 'json-server', process: child, url }, firstReadMs: performance.now() - started };
}

async function timedGet(url: string, headers: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  await res.arrayBuffer();
  return performance.now() - started;
}

async function appendsOneAtATime(url: string, headers: Record<string, string>, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: NEW_ROW,
    });
    if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function load(
  url: string,
  headers: Record<string, string>,
  connections: number,
  method = 'GET',
): Promise<Result> {
  const options = {
    url,
    connections,
    headers: method === 'POST' ? { ...headers, 'content-type': 'application/json' } : headers,
    method,
    timeout: 30,
    ...(method === 'POST' ? { body: NEW_ROW } : {}),
  };
  await autocannon({ ...options, duration: 2 });
  const result = await autocannon({ ...options, duration: DURATION });
  if (result.errors || result.timeouts || result.non2xx)
    throw new Error(
      `${method} ${url}: ${result.errors} errors, ${result.timeouts} time-outs, ${result.non2xx} non-2xx`,
    );
  return result;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return Math.round(kb / 1024);
}

const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-vs-json-server-'));
const running: Service[] = [];
try {
  const sizes = [SMALL_ROWS, LARGE_ROWS] as const;
  const files: Record<number, { xlsx: string; json: string }> = {};
  for (const size of sizes) {
    const rows = generateRows(size);
    const xlsx = path.join(dir, `orders-${size}.xlsx`);
    const json = path.join(dir, `orders-${size}.json`);
    await writeOrdersWorkbook(xlsx, rows);
    await writeFile(json, JSON.stringify({ orders: rowObjects(rows).map((r, i) => ({ id: i + 1, ...r })) }));
    files[size] = { xlsx, json };
  }

  // SheetPort, set up with its own CLI as a user would, then `sheetport serve`.
  const dataDir = path.join(dir, 'sheetport');
  const userKeys: Record<number, string> = {};
  for (const size of sizes) {
    userKeys[size] = (await sheetportCli(dataDir, 'connect', files[size]!.xlsx)).user_key as string;
  }
  const key = (
    await sheetportCli(
      dataDir,
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
    )
  ).key as string;
  const sheetport = await startProcess(
    'sheetport',
    [CLI, 'serve', '--data-dir', dataDir, '--port', '0', '--json'],
    (out) => /"url":"([^"]+)"/.exec(out)?.[1],
  );
  running.push(sheetport);
  const auth = { authorization: `Bearer ${key}` };
  const tabUrl = (size: number) => `${sheetport.url}/api/spreadsheets/${userKeys[size]}/${TAB}`;

  const spFirstRead100k = await timedGet(`${tabUrl(LARGE_ROWS)}?limit=100`, auth);
  await timedGet(`${tabUrl(SMALL_ROWS)}?limit=100`, auth);
  const js5k = await startJsonServer(files[SMALL_ROWS]!.json);
  running.push(js5k.service);
  const js100k = await startJsonServer(files[LARGE_ROWS]!.json);
  running.push(js100k.service);
  // Loaded: both services have just read both data sets (json-server at its start), nothing else yet.
  const spLoadedRss = await rssMb(sheetport.process.pid!);
  const jsLoadedRss = (await rssMb(js5k.service.process.pid!)) + (await rssMb(js100k.service.process.pid!));

  const results: [string, string, string, string][] = [];
  const row = (label: string, sp: string, js: string, ratio: string) => {
    results.push([label, sp, js, ratio]);
    console.log(`${label.padEnd(48)} ${sp.padStart(14)} ${js.padStart(14)} ${ratio.padStart(8)}`);
  };
  console.log(cliMode());
  console.log(
    `${'case'.padEnd(48)} ${'SheetPort'.padStart(14)} ${'json-server'.padStart(14)} ${'ratio'.padStart(8)}`,
  );
  const targets: string[] = [];
  row(
    'first read, 100,000 rows (ms)',
    spFirstRead100k.toFixed(0),
    js100k.firstReadMs.toFixed(0),
    (spFirstRead100k / js100k.firstReadMs).toFixed(2),
  );
  if (spFirstRead100k > 1500)
    targets.push(`first read of 100,000 rows took ${spFirstRead100k.toFixed(0)} ms (target 1,500)`);

  const spRead = await load(`${tabUrl(SMALL_ROWS)}?limit=100`, auth, 10);
  const jsRead = await load(`${js5k.service.url}/orders?_limit=100`, {}, 10);
  row(
    'read 100 rows of 5,000, 10 connections (req/s)',
    spRead.requests.average.toFixed(0),
    jsRead.requests.average.toFixed(0),
    (spRead.requests.average / jsRead.requests.average).toFixed(2),
  );

  const spAppend = await load(tabUrl(SMALL_ROWS), auth, 2, 'POST');
  const jsAppend = await load(`${js5k.service.url}/orders`, {}, 2, 'POST');
  row(
    'append to 5,000 rows, 2 connections (req/s)',
    spAppend.requests.average.toFixed(0),
    jsAppend.requests.average.toFixed(0),
    (spAppend.requests.average / jsAppend.requests.average).toFixed(2),
  );
  row(
    'append to 5,000 rows, 2 connections (p50 ms)',
    String(spAppend.latency.p50),
    String(jsAppend.latency.p50),
    '',
  );
  if (spAppend.requests.average < jsAppend.requests.average)
    targets.push('append to 5,000 rows is below json-server throughput');

  const spAppendLarge = await appendsOneAtATime(tabUrl(LARGE_ROWS), auth, 20);
  const jsAppendLarge = await appendsOneAtATime(`${js100k.service.url}/orders`, {}, 20);
  row(
    'append to 100,000 rows, one at a time (p50 ms)',
    spAppendLarge.toFixed(0),
    jsAppendLarge.toFixed(0),
    (spAppendLarge / jsAppendLarge).toFixed(2),
  );
  if (spAppendLarge > 1.5 * jsAppendLarge) targets.push('append to 100,000 rows is over 1.5x json-server');

  row(
    'resident memory, both data sets loaded (MB)',
    String(spLoadedRss),
    String(jsLoadedRss),
    (spLoadedRss / jsLoadedRss).toFixed(2),
  );
  if (spLoadedRss > jsLoadedRss)
    targets.push(`resident memory once loaded, ${spLoadedRss} MB, is above json-server's ${jsLoadedRss} MB`);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const spRss = await rssMb(sheetport.process.pid!);
  const jsRss = (await rssMb(js5k.service.process.pid!)) + (await rssMb(js100k.service.process.pid!));
  row('resident memory, after the cases (MB)', String(spRss), String(jsRss), (spRss / jsRss).toFixed(2));
  if (spRss > jsRss)
    targets.push(`resident memory after the cases, ${spRss} MB, is above json-server's ${jsRss} MB`);

  console.log(targets.length ? `\ntargets missed:\n- ${targets.join('\n- ')}` : '\nall targets met');
  if (process.env.BENCH_JSON) await writeFile(process.env.BENCH_JSON, JSON.stringify(results, null, 2));
  process.exitCode = targets.length ? 1 : 0;
} finally {
  for (const service of running) service.process.kill('SIGTERM');
  await Promise.all(running.map((s) => (s.process.exitCode === null ? once(s.process, 'exit') : null)));
  await rm(dir, { recursive: true, force: true });
}
