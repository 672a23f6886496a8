/**
 * `npm run bench:query`: querying a spreadsheet tab like a database, SheetPort beside json-server 0.17.4 and an
 * unindexed in-memory SQLite table holding the same rows, in one run. For each size (100,000 and 1,048,575 data
 * rows unless `--sizes` says otherwise) it times a selective range, an `or` of two equalities, `contains`, a
 * group-by count + sum (json-server: fetch every row and group in the client) and an upsert of 100 rows.
 *
 * SheetPort (`sheetport serve` on the .xlsx, default settings) is timed over HTTP: each query's first run on a
 * new snapshot (after start, and again after a write), then the median of 5 repeats, each with other literals
 * (another range, two other customers, another needle: the column's index is built, the answer is not cached);
 * a loop of one-row reads runs beside the first runs and reports its longest wait (what index building costs
 * other requests). json-server: the median of 3 (it caches nothing). SQLite: in process, no HTTP, the median of
 * 5, with the same literals. The first run of every case is checked to give the same count in all three. What the numbers mean: docs/performance.md, "Querying".
 *
 *   node bench/query/run.ts [--sizes 100000,1048575] [--sheetport-only]
 *
 * `--sheetport-only` skips json-server and SQLite (their columns read "-"): for trying a change to SheetPort
 * quickly; the numbers that go into docs/performance.md come from a whole run.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scaleFiles } from '../scale/cache.ts';
import { startJsonServer } from '../scale/json-server-run.ts';
import { connectSheetPort, servedCopy, serveSheetPort } from '../scale/sheetport-run.ts';
import { percentile, showMs } from '../scale/timing.ts';
import { newRowsOf, type QueryCase, queryCases, sqliteUpsert, upsertRows } from './cases.ts';
import { loadSqlite } from './sqlite-table.ts';

const sizesArg = process.argv.indexOf('--sizes');
const SIZES = sizesArg > 0 ? process.argv[sizesArg + 1]!.split(',').map(Number) : [100_000, 1_048_575];
const median = (times: number[]) => percentile(times, 50);
const SHEETPORT_ONLY = process.argv.includes('--sheetport-only');

interface Timed<T> {
  ms: number;
  value: T;
}

async function timedFetch(url: string, init: RequestInit = {}): Promise<Timed<Response & { text: string }>> {
  const started = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(1_800_000) });
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return { ms, value: Object.assign(res, { text }) };
}

async function repeat(times: number, run: (i: number) => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) out.push(await run(i));
  return out;
}

/** One-row reads in a loop until stopped; the longest any of them took. */
function probe(url: string, headers: Record<string, string>) {
  let running = true;
  let longest = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await (await fetch(url, { headers })).arrayBuffer();
      longest = Math.max(longest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return longest;
  };
}

interface Row {
  name: string;
  first: number;
  afterWrite: number;
  repeated: number;
  jsonServer: number;
  sqlite: number;
  counts: number[];
  /** The longest one-row read beside the first run, after start and after a write. */
  longest: number[];
}

async function sqliteSide(rows: number, cases: QueryCase[]) {
  const started = performance.now();
  const db = loadSqlite(rows);
  console.error(`  SQLite: loaded in ${showMs(performance.now() - started)}`);
  const out = cases.map((c, k) => {
    const count = c.sqlite(db).count;
    const times = Array.from({ length: 5 }, (_, variant) => {
      const asked = queryCases(rows, 1 + variant)[k]!;
      const t = performance.now();
      asked.sqlite(db);
      return performance.now() - t;
    });
    return { ms: median(times), count };
  });
  const upsert = median(
    Array.from({ length: 3 }, (_, round) => {
      const t = performance.now();
      sqliteUpsert(db, upsertRows(rows, 1_000 + round));
      return performance.now() - t;
    }),
  );
  db.close();
  return { out, upsert };
}

async function sheetportSide(rows: number, file: string, cases: QueryCase[]) {
  const setup = await servedCopy('sheetport-query-bench-', file, rows);
  const keys = await connectSheetPort(setup);
  const server = await serveSheetPort(setup, keys);
  try {
    const headers = server.headers;
    const listed = JSON.parse((await timedFetch(`${server.url}/v1/spreadsheets`, { headers })).value.text);
    const sheet = `${server.url}/v1/sheets/${encodeURIComponent(listed.data[0].sheets[0].sheet_id)}`;
    // A list's meta.total; an aggregate's groups (meta.total counts them too).
    const countOf = (text: string): number => JSON.parse(text).meta.total;
    // Each first run with one-row reads beside it: the longest of them, per case.
    const firstRuns = async () => {
      const firsts: (Timed<number> & { longestRead: number })[] = [];
      for (const c of cases) {
        const stop = probe(`${server.tab}/1`, headers);
        const { ms, value } = await timedFetch(`${sheet}${c.sheetport}`, { headers });
        firsts.push({ ms, value: countOf(value.text), longestRead: await stop() });
      }
      return { firsts, longestRead: Math.max(...firsts.map((f) => f.longestRead)) };
    };
    const start = await firstRuns();
    // Repeats ask with other literals (queryCases' variants): the index is built, the answer is new.
    const repeated: number[] = [];
    for (let k = 0; k < cases.length; k++) {
      const ask = async (i: number) =>
        (await timedFetch(`${sheet}${queryCases(rows, 1 + i)[k]!.sheetport}`, { headers })).ms;
      repeated.push(median(await repeat(5, ask)));
    }
    const upsert = async (round: number) =>
      (
        await timedFetch(`${sheet}/rows:upsert`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ key: ['Order ID'], rows: upsertRows(rows, round) }),
        })
      ).ms;
    const upsertFirst = await upsert(0);
    const after = await firstRuns();
    const upsertRepeated = median(await repeat(3, (i) => upsert(1 + i)));
    return { start, repeated, after, upsertFirst, upsertRepeated };
  } finally {
    await server.stop();
    await rm(setup.runDir, { recursive: true, force: true });
  }
}

async function jsonServerSide(rows: number, db: string, cases: QueryCase[]) {
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-query-json-server-'));
  const served = path.join(runDir, 'db.json');
  await copyFile(db, served);
  const server = await startJsonServer(served, rows);
  const base = server.listPage(0).url.split('?')[0]!;
  try {
    console.error(`  json-server: first answer after ${showMs(server.coldStartMs)}`);
    const out: { ms: number; count: number }[] = [];
    for (let k = 0; k < cases.length; k++) {
      let count = 0;
      const times = await repeat(3, async (variant) => {
        const asked = queryCases(rows, variant)[k]!;
        const { ms, value } = await timedFetch(`${base}${asked.jsonServer}`);
        if (asked.jsonServer !== '') {
          if (variant === 0) count = Number(value.headers.get('x-total-count'));
          return ms;
        }
        // No group-by: the client takes every row and groups them itself.
        const started = performance.now();
        const groups = new Map<unknown, { count: number; sum: number }>();
        for (const row of JSON.parse(value.text) as Record<string, unknown>[]) {
          const g = groups.get(row.Region) ?? { count: 0, sum: 0 };
          g.count++;
          g.sum += Number(row.Quantity ?? 0);
          groups.set(row.Region, g);
        }
        if (variant === 0) count = groups.size;
        return ms + performance.now() - started;
      });
      out.push({ ms: median(times), count });
    }
    // An upsert is a request per row (PATCH an existing id, POST a new one; a real client would also have to ask
    // which exist first, which is not counted). Each write rewrites db.json whole, so at large sizes 10 of the
    // 100 are timed and the total scaled.
    const all = upsertRows(rows, 0);
    const timedRows = rows > 200_000 ? all.filter((_, i) => i % 10 === 0) : all;
    let ms = 0;
    for (const row of timedRows) {
      const id = row['Order ID'] as number;
      const exists = id < 9_000_000;
      const url = exists ? `${base}/${id}` : base;
      ms += (
        await timedFetch(url, {
          method: exists ? 'PATCH' : 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(exists ? row : { id, ...row }),
        })
      ).ms;
    }
    return { out, upsert: (ms * all.length) / timedRows.length, upsertScaled: timedRows.length < all.length };
  } finally {
    await server.stop();
    await rm(runDir, { recursive: true, force: true });
  }
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(a / b >= 10 ? 0 : 1)}x`;

console.log(`Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model.trim()})`);
for (const rows of SIZES) {
  console.error(`\n${rows.toLocaleString('en-US')} rows: input files`);
  const files = await scaleFiles(rows, ['xlsx']);
  const cases = queryCases(rows);
  const skipped = { out: cases.map(() => ({ ms: Number.NaN, count: Number.NaN })), upsert: Number.NaN };
  const sqlite = SHEETPORT_ONLY ? skipped : await sqliteSide(rows, cases);
  console.error('  SheetPort');
  const sp = await sheetportSide(rows, files.workbook.xlsx, cases);
  console.error('  json-server');
  const js = SHEETPORT_ONLY
    ? { ...skipped, upsertScaled: false }
    : await jsonServerSide(rows, files.db, cases);
  const table: Row[] = cases.map((c, i) => ({
    name: c.name,
    first: sp.start.firsts[i]!.ms,
    afterWrite: sp.after.firsts[i]!.ms,
    repeated: sp.repeated[i]!,
    jsonServer: js.out[i]!.ms,
    sqlite: sqlite.out[i]!.ms,
    longest: [sp.start.firsts[i]!.longestRead, sp.after.firsts[i]!.longestRead],
    counts: [sp.start.firsts[i]!.value, sp.after.firsts[i]!.value, js.out[i]!.count, sqlite.out[i]!.count],
  }));
  console.log(`\n### ${rows.toLocaleString('en-US')} rows\n`);
  console.log(
    '| Case | SheetPort first (start / after a write) | longest read beside it | SheetPort repeated | json-server | SQLite, no index | json-server / SheetPort | SheetPort / SQLite | Rows or groups |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of table) {
    console.log(
      `| ${r.name} | ${showMs(r.first)} / ${showMs(r.afterWrite)} | ${showMs(r.longest[0]!)} / ${showMs(r.longest[1]!)} | ${showMs(r.repeated)} | ${showMs(r.jsonServer)} | ${showMs(r.sqlite)} | ${ratio(r.jsonServer, r.repeated)} | ${(r.repeated / r.sqlite).toFixed(2)} | ${r.counts.join(' / ')} |`,
    );
  }
  console.log(
    `| upsert of 100 rows (${newRowsOf(rows)} new) | ${showMs(sp.upsertFirst)} | | ${showMs(sp.upsertRepeated)} | ${showMs(js.upsert)}${js.upsertScaled ? ' (10 timed, x10)' : ''} | ${showMs(sqlite.upsert)} | ${ratio(js.upsert, sp.upsertRepeated)} | ${(sp.upsertRepeated / sqlite.upsert).toFixed(2)} | |`,
  );
  console.log(
    `\nLongest one-row read beside the first queries: ${showMs(sp.start.longestRead)} after start, ${showMs(sp.after.longestRead)} after a write.`,
  );
}
