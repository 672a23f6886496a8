/**
 * The retry schedule, pause and replay of webhook deliveries, once per store. With SQLite through the whole
 * service (an append over HTTP queues the delivery); with PostgreSQL, the change stores and the real recorder and
 * delivery worker over them, since the service composes a PostgreSQL store elsewhere.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeRecorder } from '../../server/changes/recorder.ts';
import type { Deliveries } from '../../server/repositories/deliveries.ts';
import type { Webhooks } from '../../server/repositories/webhooks.ts';
import { DEFAULT_EVENT_RULES } from '../../server/webhooks/events.ts';
import { deliver } from '../../server/webhooks/sender.ts';
import { signedHeaders } from '../../server/webhooks/signer.ts';
import { DeliveryWorker } from '../../server/webhooks/worker.ts';
import {
  CHANGE_STORE_KINDS,
  type ChangeStoreKind,
  type ChangeStores,
  openChangeStores,
} from '../helpers/change-stores.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';
import { webhookOnTab } from '../helpers/webhook-to-receiver.ts';

/** The delivery schedule is driven by an injected clock: no test waits 30 minutes. */
const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
let now = T0;
const clock = () => new Date(now);
let h: Harness | undefined;
let stores: ChangeStores | undefined;
let servers: http.Server[] = [];

afterEach(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  servers = [];
  await h?.close();
  await stores?.close();
  h = undefined;
  stores = undefined;
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

/** What a suite drives: the outbox, the worker (not started: the test drains it) and the webhook's status. */
interface Rig {
  deliveries: Deliveries;
  drain(): Promise<void>;
  setStatus(status: 'active' | 'paused'): Promise<void>;
}
let rig: Rig;

/** A webhook to `url` on the People tab, and one append recorded: one delivery queued. */
async function oneDelivery(kind: ChangeStoreKind, url: string): Promise<{ deliveryId: string }> {
  const webhookId = kind === 'sqlite' ? await appendThroughService(url) : await appendRecorded(url);
  const { data } = await rig.deliveries.page(webhookId, { limit: 10, offset: 0 });
  expect(data).toHaveLength(1);
  return { deliveryId: data[0]!.id };
}

/** The service (its worker not started) with a webhook to `url`; one append over HTTP. */
async function appendThroughService(url: string): Promise<string> {
  const service = await startHarness({ clock });
  h = service;
  const conn = await service.connect(await writePeopleWorkbook(service.dir));
  const { webhookId } = await webhookOnTab(service.context, conn, url, { events: ['row.inserted'] });
  const res = await service.fetch(rowsPath(conn, 'People'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"Name":"x"}',
  });
  expect(res.status).toBe(201);
  rig = {
    deliveries: service.context.deliveries,
    drain: () => service.context.worker.drain(),
    setStatus: async (status) => void (await service.context.webhooks.update(webhookId, { status })),
  };
  return webhookId;
}

/** PostgreSQL's change stores with a webhook to `url`; one append recorded by the real recorder. */
async function appendRecorded(url: string): Promise<string> {
  const s = await openChangeStores('postgres');
  stores = s;
  const tab = { spreadsheetId: 'wb_1', sourceSheetId: '1', sheetName: 'People' };
  const webhookId = await s.addWebhook({ ...tab, url, events: ['row.inserted'] });
  const recorder = new ChangeRecorder({
    recording: s.changeRecording,
    now: () => now,
    rules: DEFAULT_EVENT_RULES,
    onQueued: () => {},
  });
  const people = (version: string, names: string[]) => ({
    title: 'People',
    version,
    tabs: [
      {
        sourceSheetId: '1',
        name: 'People',
        header: ['Name'],
        headerRow: 1,
        typed: names.map((n) => [n]),
        formatted: [],
      },
    ],
  });
  const before = people('v1', ['Ada']);
  await recorder.record(tab.spreadsheetId, null, before);
  await recorder.record(tab.spreadsheetId, before, people('v2', ['Ada', 'x']));
  const worker = new DeliveryWorker({
    deliveries: s.deliveries,
    webhooks: s.webhooks as Webhooks,
    now: () => now,
    send: (attempt) => deliver({ ...attempt, allowLan: false }),
    sign: signedHeaders,
  });
  rig = {
    deliveries: s.deliveries,
    drain: () => worker.drain(),
    setStatus: (status) => s.setWebhookStatus(webhookId, status),
  };
  return webhookId;
}

const state = async (id: string) => (await rig.deliveries.get(id))!;
const attempts = async (id: string) => await rig.deliveries.attemptsOf(id);

describe.each(CHANGE_STORE_KINDS)('with %s', (kind) => {
  describe('retry schedule', () => {
    it('retries a failing receiver at 30 s, 5 min and 30 min after each failure, then marks it failed', async () => {
      const target = await receiver((_req, res) => res.writeHead(500).end('boom'));
      const { deliveryId } = await oneDelivery(kind, target.url);
      await rig.drain();
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
        await rig.drain();
        expect(target.hits(), `not before ${delay} ms`).toBe(i + 1);
        now += 1;
        await rig.drain();
        expect(target.hits()).toBe(i + 2);
      }
      expect(await state(deliveryId)).toMatchObject({ state: 'failed', attempts: 4, nextAttemptAt: null });
      now += 24 * 60 * 60_000;
      await rig.drain();
      expect(target.hits()).toBe(4);

      // A manual replay is one new attempt, recorded like any other.
      expect(await rig.deliveries.requestReplay(deliveryId, now)).toBe(true);
      await rig.drain();
      expect(target.hits()).toBe(5);
      expect((await attempts(deliveryId)).at(-1)).toMatchObject({
        attempt: 5,
        trigger: 'replay',
        status: 500,
      });
      expect((await state(deliveryId)).state).toBe('failed');
    });

    it('succeeds on a later attempt and sends nothing more', async () => {
      let calls = 0;
      const target = await receiver((_req, res) => res.writeHead(++calls === 1 ? 503 : 204).end());
      const { deliveryId } = await oneDelivery(kind, target.url);
      await rig.drain();
      now += 30_000;
      await rig.drain();
      expect(await state(deliveryId)).toMatchObject({ state: 'succeeded', attempts: 2 });
      now += 60 * 60_000;
      await rig.drain();
      expect(target.hits()).toBe(2);
    });

    it('does not follow redirects: a 302 is a failed attempt and its target gets nothing', async () => {
      const elsewhere = await receiver((_req, res) => res.end('ok'));
      const target = await receiver((_req, res) => res.writeHead(302, { location: elsewhere.url }).end());
      const { deliveryId } = await oneDelivery(kind, target.url);
      await rig.drain();
      expect((await attempts(deliveryId))[0]).toMatchObject({ status: 302 });
      expect((await state(deliveryId)).state).toBe('pending');
      expect(elsewhere.hits()).toBe(0);
    });

    it('a reset connection is a failed attempt with its error', async () => {
      const target = await receiver((req) => req.socket.destroy());
      const { deliveryId } = await oneDelivery(kind, target.url);
      await rig.drain();
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
      const { deliveryId } = await oneDelivery(kind, target.url);
      const started = Date.now();
      await rig.drain();
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(4900);
      expect(took).toBeLessThan(7000);
      expect((await attempts(deliveryId))[0]).toMatchObject({ status: null, error: 'timeout' });
      expect((await attempts(deliveryId))[0]!.durationMs).toBeGreaterThanOrEqual(4900);
    }, 15_000);

    it('a paused webhook keeps its notifications queued and sends them on resume', async () => {
      const target = await receiver((_req, res) => res.end('ok'));
      const { deliveryId } = await oneDelivery(kind, target.url);
      await rig.setStatus('paused');
      await rig.drain();
      expect(target.hits()).toBe(0);
      expect((await state(deliveryId)).state).toBe('pending');
      await rig.setStatus('active');
      await rig.drain();
      expect(target.hits()).toBe(1);
      expect((await state(deliveryId)).state).toBe('succeeded');
    });
  });

  describe('replaying a delivery that awaits a retry', () => {
    it('brings the retry forward and keeps the remaining schedule', async () => {
      const target = await receiver((_req, res) => res.writeHead(500).end());
      const { deliveryId } = await oneDelivery(kind, target.url);
      await rig.drain(); // attempt 1 fails: retry due in 30 s
      now += 1000;
      expect(await rig.deliveries.requestReplay(deliveryId, now)).toBe(true);
      await rig.drain(); // attempt 2 now, as the first retry
      expect((await attempts(deliveryId)).map((a) => a.trigger)).toEqual(['auto', 'auto']);
      expect(await state(deliveryId)).toMatchObject({ state: 'pending', nextAttemptAt: now + 5 * 60_000 });
    });
  });
});
