import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import { webhookOnTab } from '../helpers/webhook-to-receiver.ts';

/** The delivery schedule is driven by an injected clock: no test waits 30 minutes. */
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
let now = T0;
const clock = () => new Date(now);
let h: Harness;
let servers: http.Server[] = [];

afterEach(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
  await h?.close();
  now = T0;
});

async function receiver(handler: http.RequestListener): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hits: () => hits };
}

/** A service (worker not started: the test drives it with drain()) with a webhook to `url`; one append queued. */
async function oneDelivery(
  url: string,
): Promise<{ conn: ConnectionRecord; deliveryId: string; webhookId: string }> {
  h = await startHarness({ clock });
  const conn = await h.connect(await writePeopleWorkbook(h.dir));
  const { webhookId } = await webhookOnTab(h.context, conn, url, { events: ['row.inserted'] });
  const res = await h.fetch(rowsPath(conn, 'People'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"Name":"x"}',
  });
  expect(res.status).toBe(201);
  const { data } = await h.context.deliveries.page(webhookId, { limit: 10, offset: 0 });
  expect(data).toHaveLength(1);
  return { conn, deliveryId: data[0]!.id, webhookId };
}

const state = async (id: string) => (await h.context.deliveries.get(id))!;
const attempts = async (id: string) => await h.context.deliveries.attemptsOf(id);

describe('retry schedule', () => {
  it('retries a failing receiver at 30 s, 5 min and 30 min after each failure, then marks it failed', async () => {
    const target = await receiver((_req, res) => res.writeHead(500).end('boom'));
    const { deliveryId } = await oneDelivery(target.url);
    await h.context.worker.drain();
    expect(await state(deliveryId)).toMatchObject({
      state: 'pending',
      attempts: 1,
      nextAttemptAt: now + 30_000,
    });
    expect((await attempts(deliveryId))[0]).toMatchObject({
      attempt: 1,
      trigger: 'auto',
      status: 500,
      responseExcerpt: 'boom',
    });

    const steps = [30_000, 5 * 60_000, 30 * 60_000];
    for (const [i, delay] of steps.entries()) {
      now += delay - 1;
      await h.context.worker.drain();
      expect(target.hits(), `not before ${delay} ms`).toBe(i + 1);
      now += 1;
      await h.context.worker.drain();
      expect(target.hits()).toBe(i + 2);
    }
    expect(await state(deliveryId)).toMatchObject({ state: 'failed', attempts: 4, nextAttemptAt: null });
    now += 24 * 60 * 60_000;
    await h.context.worker.drain();
    expect(target.hits()).toBe(4);

    // A manual replay is one new attempt, recorded like any other.
    expect(await h.context.deliveries.requestReplay(deliveryId, now)).toBe(true);
    await h.context.worker.drain();
    expect(target.hits()).toBe(5);
    expect((await attempts(deliveryId)).at(-1)).toMatchObject({ attempt: 5, trigger: 'replay', status: 500 });
    expect((await state(deliveryId)).state).toBe('failed');
  });

  it('succeeds on a later attempt and sends nothing more', async () => {
    let calls = 0;
    const target = await receiver((_req, res) => res.writeHead(++calls === 1 ? 503 : 204).end());
    const { deliveryId } = await oneDelivery(target.url);
    await h.context.worker.drain();
    now += 30_000;
    await h.context.worker.drain();
    expect(await state(deliveryId)).toMatchObject({ state: 'succeeded', attempts: 2 });
    now += 60 * 60_000;
    await h.context.worker.drain();
    expect(target.hits()).toBe(2);
  });

  it('does not follow redirects: a 302 is a failed attempt and its target gets nothing', async () => {
    const elsewhere = await receiver((_req, res) => res.end('ok'));
    const target = await receiver((_req, res) => res.writeHead(302, { location: elsewhere.url }).end());
    const { deliveryId } = await oneDelivery(target.url);
    await h.context.worker.drain();
    expect((await attempts(deliveryId))[0]).toMatchObject({ status: 302 });
    expect((await state(deliveryId)).state).toBe('pending');
    expect(elsewhere.hits()).toBe(0);
  });

  it('a reset connection is a failed attempt with its error', async () => {
    const target = await receiver((req) => req.socket.destroy());
    const { deliveryId } = await oneDelivery(target.url);
    await h.context.worker.drain();
    expect((await attempts(deliveryId))[0]).toMatchObject({
      status: null,
      error: expect.stringMatching(/ECONNRESET|socket hang up/),
    });
    expect((await state(deliveryId)).state).toBe('pending');
  });

  it('a receiver that hangs past 5 s is a timed-out attempt', async () => {
    const target = await receiver(() => {
      // never answers
    });
    const { deliveryId } = await oneDelivery(target.url);
    const started = Date.now();
    await h.context.worker.drain();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(4900);
    expect(took).toBeLessThan(7000);
    expect((await attempts(deliveryId))[0]).toMatchObject({ status: null, error: 'timeout' });
    expect((await attempts(deliveryId))[0]!.durationMs).toBeGreaterThanOrEqual(4900);
  }, 15_000);

  it('a paused webhook keeps its notifications queued and sends them on resume', async () => {
    const target = await receiver((_req, res) => res.end('ok'));
    const { deliveryId, webhookId } = await oneDelivery(target.url);
    await h.context.webhooks.update(webhookId, { status: 'paused' });
    await h.context.worker.drain();
    expect(target.hits()).toBe(0);
    expect((await state(deliveryId)).state).toBe('pending');
    await h.context.webhooks.update(webhookId, { status: 'active' });
    await h.context.worker.drain();
    expect(target.hits()).toBe(1);
    expect((await state(deliveryId)).state).toBe('succeeded');
  });
});

describe('replaying a delivery that awaits a retry', () => {
  it('brings the retry forward and keeps the remaining schedule', async () => {
    const target = await receiver((_req, res) => res.writeHead(500).end());
    const { deliveryId } = await oneDelivery(target.url);
    await h.context.worker.drain(); // attempt 1 fails: retry due in 30 s
    now += 1000;
    expect(await h.context.deliveries.requestReplay(deliveryId, now)).toBe(true);
    await h.context.worker.drain(); // attempt 2 now, as the first retry
    expect((await attempts(deliveryId)).map((a) => a.trigger)).toEqual(['auto', 'auto']);
    expect(await state(deliveryId)).toMatchObject({ state: 'pending', nextAttemptAt: now + 5 * 60_000 });
  });
});
