/**
 * The first write after a restart of `sheetport serve` on a large `.xlsx` (not part of `vitest run`; run by hand:
 * `node bench/first-write-after-restart.ts`, from a checkout's sources). `connect` the workbook on a fresh data dir,
 * `serve` it WARM_S seconds (25: its read and its write document are kept meanwhile), stop, `serve` again, read one
 * 1-row page, then the write at the middle row at once, while a 10-row page is read every 20 ms beside it. Prints the
 * first page's time, the write's, and the longest read beside it.
 *
 * Settings (environment): ROWS (1,048,575; the workbook of bench/scale-serve.ts, made once and cached), WRITE
 * (delete, update or append), WARM_S (25), RESTART=0 (the write right after the first `serve`, no restart), TREE (the
 * checkout to run, this one by default: another's to compare before and after).
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cli, scaleWorkbook, serve, TAB } from './scale-serve.ts';

const tree = process.env.TREE ?? fileURLToPath(new URL('..', import.meta.url));
const ROWS = Number(process.env.ROWS || 1_048_575);
const WARM_MS = Number(process.env.WARM_S || 25) * 1000;
const WRITE = process.env.WRITE ?? 'delete';
const RESTART = process.env.RESTART !== '0';

const stop = async (child: ChildProcess) => {
  child.kill('SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
};

const file = scaleWorkbook(ROWS);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-first-write-restart-'));
try {
  const userKey = (await cli(tree, dataDir, 'connect', file)).user_key as string;
  const limits = ['--plan', 'enterprise', '--per-second', '1000000', '--daily', '1000000000'];
  const key = (await cli(tree, dataDir, 'keys', 'create', '--scope', 'read_write', ...limits)).key as string;
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let server = await serve(tree, dataDir);
  const rows = () => `${server.url}/api/spreadsheets/${userKey}/${TAB}`;
  if (RESTART) {
    await (await fetch(`${rows()}?limit=1`, { headers })).text();
    await sleep(WARM_MS);
    await stop(server.child);
    server = await serve(tree, dataDir);
  }
  const pageStart = performance.now();
  await (await fetch(`${rows()}?limit=1`, { headers })).text();
  const pageMs = performance.now() - pageStart;

  let writing = true;
  let longest = 0;
  let reads = 0;
  const beside = (async () => {
    for (let k = 0; writing; k++) {
      const start = performance.now();
      await (await fetch(`${rows()}?limit=10&offset=${(k * 7919) % ROWS}`, { headers })).text();
      longest = Math.max(longest, performance.now() - start);
      reads++;
      await sleep(20);
    }
  })();
  const writeStart = performance.now();
  const middle = Math.floor(ROWS / 2);
  const body = JSON.stringify({ Customer: 'first write' });
  const res =
    WRITE === 'delete'
      ? await fetch(`${rows()}/${middle}`, { method: 'DELETE', headers })
      : WRITE === 'update'
        ? await fetch(`${rows()}/${middle}`, { method: 'PATCH', headers, body })
        : await fetch(rows(), { method: 'POST', headers, body });
  const answer = await res.text();
  const writeMs = performance.now() - writeStart;
  writing = false;
  await beside;
  const failed = res.status >= 300 ? ` ${answer.slice(0, 200)}` : '';
  console.log(
    `${RESTART ? 'after a restart' : 'after connect'}: first page ${pageMs.toFixed(0)} ms; first ${WRITE} ` +
      `${res.status} ${writeMs.toFixed(0)} ms; longest read beside ${longest.toFixed(0)} ms (${reads} reads)${failed}`,
  );
  await stop(server.child);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
