/**
 * Crash safety of the outbox with SQLite: a real `sheetport serve` killed (SIGKILL) with 1,000 notifications
 * pending or in flight, then restarted on the same data dir. SQLite only (it reads the data dir's database);
 * PostgreSQL's shared outbox across a killed worker process is test/store-pg/outbox-crash.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createServiceContext } from '../../server/context.ts';
import { registerWebhook } from '../../server/webhooks/register.ts';
import { type RunningServe, startServe } from '../helpers/cli.ts';
import { connectFile, writePeopleWorkbook } from '../helpers/fixtures.ts';

const WEBHOOKS = 20;
const APPENDS = 50; // 20 webhooks x 50 appends = 1,000 notifications

let dir: string;
const children: RunningServe[] = [];
afterAll(async () => {
  for (const c of children) await c.stop('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function serve(dataDir: string): Promise<RunningServe> {
  const server = await startServe(dataDir, {
    // A short lease so deliveries caught in flight by the kill go out again quickly after the restart.
    env: { SHEETPORT_DELIVERY_CLAIM_MS: '1000' },
  });
  children.push(server);
  return server;
}

describe('crash safety of the outbox', () => {
  it('after SIGKILL with 1,000 notifications pending or in flight, a restart delivers every one', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-crash-'));
    const dataDir = path.join(dir, 'data');

    // A slow receiver, so that many deliveries are pending or in flight when the service is killed.
    const seen = new Map<string, string[]>();
    let total = 0;
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = String(req.headers['x-service-delivery']);
        seen.set(id, [...(seen.get(id) ?? []), Buffer.concat(chunks).toString()]);
        total++;
        setTimeout(() => res.end('ok'), 300);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    const setup = createServiceContext({ dataDir, log: () => {} });
    const conn = await connectFile(setup.connections, await writePeopleWorkbook(dir));
    const tab = (await setup.spreadsheets.of(conn).observe()).tabs.find((t) => t.name === 'People')!;
    const { key } = await setup.keys.create({
      scope: 'read_write',
      plan: 'enterprise',
      perSecond: 10_000,
      daily: 1_000_000,
    });
    for (let i = 0; i < WEBHOOKS; i++) {
      await registerWebhook(setup.webhooks, {
        url: hook,
        spreadsheetId: conn.spreadsheetId,
        sheetName: 'People',
        sourceSheetId: tab.sourceSheetId,
        events: ['row.inserted'],
        apiKeyId: null,
      });
    }
    await setup.close();

    const first = await serve(dataDir);
    for (let i = 0; i < APPENDS; i++) {
      const res = await fetch(`${first.url}/api/spreadsheets/${conn.userKey}/People`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ Name: `crash ${i}` }),
      });
      expect(res.status).toBe(201); // answered only once its notifications are in the outbox
    }
    while (total < 100) await new Promise((r) => setTimeout(r, 20));
    await first.stop('SIGKILL');
    const beforeRestart = seen.size;
    expect(beforeRestart).toBeLessThan(WEBHOOKS * APPENDS);

    const second = await serve(dataDir);
    const deadline = Date.now() + 60_000;
    while (seen.size < WEBHOOKS * APPENDS && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    await second.stop('SIGTERM');
    receiver.closeAllConnections();
    receiver.close();

    expect(seen.size).toBe(WEBHOOKS * APPENDS);
    // At least once: a repeat carries the same delivery id and the same body.
    for (const bodies of seen.values()) expect(new Set(bodies).size).toBe(1);
    const check = createServiceContext({ dataDir, log: () => {} });
    const states = check.db
      .prepare<[], { state: string; n: number }>('SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state')
      .all();
    await check.close();
    expect(states).toEqual([{ state: 'succeeded', n: WEBHOOKS * APPENDS }]);
    console.log(
      `crash test: ${beforeRestart} distinct deliveries before the kill, ${seen.size} after restart, ${total - seen.size} repeats`,
    );
  }, 120_000);
});
