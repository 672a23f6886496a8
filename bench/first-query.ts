/**
 * `npm run bench:first-query`: a query's first run on a big tab, and what it costs everyone else meanwhile. A real
 * `sheetport serve` on the scale benchmark's 1,048,575-row workbook (bench/scale-serve.ts); each query is sent
 * once, as the first of its kind on the snapshot (no index, no ranks, no cached page), while a loop reads a
 * 10-row page every 5 ms beside it. Printed per query: its answer time, and the longest of the reads beside it
 * (what a first search or sort makes other requests wait).
 *
 *   node bench/first-query.ts [checkout ...]
 *
 * Each argument is a checkout whose bin/sheetport.js is run (default: this one), in turn on the same workbook.
 * Environment: BENCH_ROWS (default 1,048,575), BENCH_QUERIES (query strings joined by `|`, each sent as is:
 * `search=Email%3Aada|sort=-Order%20ID`), BENCH_CPU_PROF (a directory: the server runs with --cpu-prof into it).
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cli, readKey, scaleWorkbook, serve, TAB } from './scale-serve.ts';

const ROWS = Number(process.env.BENCH_ROWS || 1_048_575);
const q = (parameter: string, value: string) => `${parameter}=${encodeURIComponent(value)}`;
const QUERIES = process.env.BENCH_QUERIES?.split('|') ?? [
  q('search', 'Order ID:52341'),
  q('search', 'Email:ada.lovelace1'),
  q('sort', 'Order ID'),
  q('sort', 'Email'),
  q('sort', '-Unit Price'),
  `${q('search', 'Customer:acme')}&${q('sort', '-Order ID')}`,
  q('where', "Email >= 'm'"),
];

interface Measured {
  query: string;
  answerMs: number;
  longestReadMs: number;
  reads: number;
}

async function runTree(tree: string, file: string): Promise<Measured[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-first-query-'));
  let server: ChildProcess | undefined;
  try {
    const userKey = (await cli(tree, dataDir, 'connect', file)).user_key as string;
    const key = await readKey(tree, dataDir);
    const started = await serve(tree, dataDir);
    server = started.child;
    const base = `${started.url}/api/spreadsheets/${userKey}/${TAB}`;
    const get = async (query: string): Promise<number> => {
      const t = performance.now();
      const res = await fetch(`${base}?${query}`, { headers: { authorization: `Bearer ${key}` } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${query}: HTTP ${res.status} ${body.slice(0, 300)}`);
      return performance.now() - t;
    };
    await get('limit=100');
    await sleep(3_000); // the start's own work behind the first answer
    const measured: Measured[] = [];
    for (const query of QUERIES) {
      let done = false;
      let longestReadMs = 0;
      let reads = 0;
      const beside = (async () => {
        for (let k = 0; !done; k++) {
          longestReadMs = Math.max(longestReadMs, await get(`limit=10&offset=${(k * 7919) % ROWS}`));
          reads++;
          await sleep(5);
        }
      })();
      await sleep(50);
      const answerMs = await get(`${query}&limit=100`);
      done = true;
      await beside;
      measured.push({ query: decodeURIComponent(query), answerMs, longestReadMs, reads });
      console.log(
        `  ${decodeURIComponent(query).padEnd(40)} ${Math.round(answerMs).toString().padStart(6)} ms   longest read beside it ${Math.round(longestReadMs)} ms (${reads} reads)`,
      );
    }
    return measured;
  } finally {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const file = scaleWorkbook(ROWS);
const trees =
  process.argv.length > 2
    ? process.argv.slice(2).map((t) => path.resolve(t))
    : [path.resolve(import.meta.dirname, '..')];
console.log(
  `${ROWS.toLocaleString('en-US')} rows; each query the first of its kind, a 10-row read every 5 ms beside it`,
);
const results: [string, Measured[]][] = [];
for (const tree of trees) {
  console.log(`${tree}:`);
  results.push([tree, await runTree(tree, file)]);
}
console.log('\n| tree | query | answer | longest read beside it |\n| --- | --- | ---: | ---: |');
for (const [tree, measured] of results)
  for (const m of measured)
    console.log(
      `| ${path.basename(tree)} | \`${m.query}\` | ${Math.round(m.answerMs)} ms | ${Math.round(m.longestReadMs)} ms |`,
    );
