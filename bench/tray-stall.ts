/**
 * The tray app's responsiveness while a large workbook loads: the embedded server (server/index.ts, as the
 * Electron main process runs it) loads a 100,000-row .xlsx, and a 5 ms ticker on the same event loop records
 * the longest gap between ticks, the longest time the tray could not have answered a click.
 * Run: node bench/tray-stall.ts [workbook.xlsx]  (a given file is written once and reused, for profiling)
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createServiceContext } from '../server/context.ts';
import { startServer } from '../server/index.ts';
import { generateRows, LARGE_ROWS, TAB, writeOrdersWorkbook } from './data.ts';

const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-stall-'));
try {
  const file = process.argv[2] ? path.resolve(process.argv[2]) : path.join(dir, 'orders.xlsx');
  if (!existsSync(file)) await writeOrdersWorkbook(file, generateRows(LARGE_ROWS));
  const dataDir = path.join(dir, 'data');
  const setup = createServiceContext({ dataDir, log: () => {} });
  const conn = await setup.connections.create({
    name: 'orders.xlsx',
    sourceKind: 'workbook',
    idPrefix: 'wb_',
    location: file,
  });
  const { key } = await setup.keys.create({
    scope: 'read',
    plan: 'enterprise',
    perSecond: 10_000,
    daily: 1e6,
  });
  await setup.close();

  // The ticker: what a tray click or menu redraw waits for at worst.
  const TICK_MS = 5;
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - TICK_MS);
    last = now;
  }, TICK_MS);

  const started = performance.now();
  const server = await startServer({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, requestLog: false });
  const startMs = performance.now() - started;
  const res = await fetch(`${server.url}/api/spreadsheets/${conn.userKey}/${TAB}?limit=100`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await res.arrayBuffer();
  const loadedMs = performance.now() - started;
  clearInterval(ticker);
  await server.stop();
  console.log(
    JSON.stringify({
      rows: LARGE_ROWS,
      status: res.status,
      serverStartMs: Math.round(startMs),
      firstPageMs: Math.round(loadedMs),
      longestStallMs: Math.round(longest),
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
