/**
 * SIGTERM stops a real `sheetport serve` within a few seconds whatever is in flight: here a request whose
 * workbook takes far longer to parse than the stop deadline (limits raised so the parse runs), next to a
 * FIFO connection, which answers at once instead of hanging a thread for ever.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STOP_DEADLINE_MS } from '../../server/config.ts';
import { createServiceContext } from '../../server/context.ts';
import { type RunningServe, startServe } from '../helpers/cli.ts';
import { connectFile } from '../helpers/fixtures.ts';
import { writeZipBomb } from '../helpers/zip-bomb.ts';

let dir: string;
let server: RunningServe | null = null;

afterAll(async () => {
  await server?.stop('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('sheetport serve on SIGTERM', () => {
  it('exits within the stop deadline while a long parse is in flight', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-stop-'));
    const dataDir = path.join(dir, 'data');
    const slowFile = path.join(dir, 'slow.xlsx');
    // Slow to read (millions of rows), and nothing to hold once read: the parse thread is what runs. 500 MB: a fast
    // machine read 250 MB within the 1.5 s below.
    await writeZipBomb(slowFile, { sheetMb: 500, numberedRows: true, emptyCells: true });
    const fifoFile = path.join(dir, 'fifo.xlsx');
    execFileSync('mkfifo', [fifoFile]);
    const setup = createServiceContext({ dataDir, log: () => {} });
    const slow = await connectFile(setup.connections, slowFile);
    const fifo = await connectFile(setup.connections, fifoFile);
    const { key } = await setup.keys.create({
      name: 'k',
      scope: 'read',
      plan: 'enterprise',
      perSecond: 1000,
      daily: 1e9,
    });
    await setup.close();

    server = await startServe(dataDir, {
      // Limits raised so the big workbook is really parsed (for minutes) instead of refused.
      env: {
        SHEETPORT_MAX_INFLATED_MB: '1000',
        SHEETPORT_PARSE_TIMEOUT_MS: '600000',
        SHEETPORT_PARSE_MEMORY_MB: '3000',
      },
    });
    const { url } = server;
    const get = (userKey: string) =>
      fetch(`${url}/api/spreadsheets/${userKey}/Bomb`, { headers: { authorization: `Bearer ${key}` } });

    let slowDone = false;
    const inFlight = get(slow.userKey)
      .then((res) => res.text())
      .catch(() => 'connection closed')
      .finally(() => {
        slowDone = true;
      });

    const started = performance.now();
    const fifoRes = await get(fifo.userKey);
    expect(fifoRes.status).toBe(502);
    const body = (await fifoRes.json()) as { error: { reason: string } };
    expect(body.error.reason).toBe('not_a_file');
    expect(performance.now() - started).toBeLessThan(2000);

    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(slowDone).toBe(false); // still parsing

    const signalled = performance.now();
    const code = await server.stop('SIGTERM');
    const stoppedIn = performance.now() - signalled;
    expect(code).toBe(0);
    expect(stoppedIn).toBeLessThan(STOP_DEADLINE_MS + 2000);
    await inFlight;
  });
});
