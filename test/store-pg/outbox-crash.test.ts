/**
 * Crash safety of the shared outbox: real worker processes on one PostgreSQL database and a real, slow receiver.
 * The first is killed (SIGKILL) with hundreds of deliveries queued or in flight; two others then send every
 * one. At least once: a delivery that was in flight at the kill may arrive twice (same id, same body), any other
 * exactly once, whichever of the two survivors sent it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ChangeStores, openChangeStores } from '../helpers/change-stores.ts';

const WEBHOOKS = 10;
const EACH = 30; // 300 notifications
const WORKER = path.resolve(import.meta.dirname, '../helpers/pg-delivery-worker.ts');
/**
 * How long a worker's claim holds: short, so the deliveries in flight at the kill are sent again soon, yet well
 * past one attempt (a 200 ms receiver and a few database round trips) on a loaded machine, as the service's 15 s
 * claim is past its 5 s send timeout. At 1 s, a machine running two suites at once let claims of the survivors
 * run out mid-attempt: 66 repeats where only the 29 in flight at the kill may repeat.
 */
const CLAIM_MS = '3000';

const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const close of closers.splice(0)) await close();
});

async function startWorker(databaseUrl: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [WORKER, databaseUrl, CLAIM_MS], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the worker exited ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
  });
  return child;
}

describe('the shared outbox across a worker crash', () => {
  it('after SIGKILL of one worker process, two others send every delivery; only those in flight may repeat', async () => {
    const seen = new Map<string, string[]>();
    let total = 0;
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = String(req.headers['x-service-delivery']);
        seen.set(id, [...(seen.get(id) ?? []), Buffer.concat(chunks).toString()]);
        total++;
        setTimeout(() => res.end('ok'), 200);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    closers.push(async () => {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    });
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const stores: ChangeStores = await openChangeStores('postgres');
    closers.push(() => stores.close());
    const queued = new Set<string>();
    for (let w = 0; w < WEBHOOKS; w++) {
      const webhook = await stores.addWebhook({ spreadsheetId: 'wb_1', sourceSheetId: '1', url });
      for (let i = 0; i < EACH; i++)
        queued.add(await stores.enqueue(webhook, 'row.inserted', JSON.stringify({ w, i }), Date.now()));
    }

    const first = await startWorker(stores.databaseUrl!);
    while (total < 60) await new Promise((r) => setTimeout(r, 20));
    first.kill('SIGKILL');
    await once(first, 'exit');
    const inFlight = (
      await stores.rows<{ n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE state = 'in_flight'")
    )[0]!.n;
    const beforeRestart = seen.size;
    expect(beforeRestart).toBeLessThan(queued.size);

    await Promise.all([startWorker(stores.databaseUrl!), startWorker(stores.databaseUrl!)]);
    const deadline = Date.now() + 60_000;
    const states = () =>
      stores.rows<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state');
    while (Date.now() < deadline) {
      const now = await states();
      if (now.length === 1 && now[0]!.state === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 100));
    }

    expect(await states()).toEqual([{ state: 'succeeded', n: queued.size }]);
    expect(new Set(seen.keys())).toEqual(queued);
    // A repeat carries the same delivery id and body, and only a delivery in flight at the kill repeats.
    for (const bodies of seen.values()) expect(new Set(bodies).size).toBe(1);
    const repeats = total - seen.size;
    expect(repeats).toBeLessThanOrEqual(inFlight);
    console.info(
      `outbox crash: ${beforeRestart} delivered before the kill, ${inFlight} in flight at it, ${repeats} repeats`,
    );
  }, 90_000);
});
