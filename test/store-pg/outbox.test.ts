/**
 * One outbox in PostgreSQL, claimed by the workers of several instances: two stores with their own pools (two
 * instances) on one real database. Every due delivery is claimed by exactly one of many concurrent claims, a
 * claim whose lease expired (its instance died) is claimed again with the same id, and a replay requested on
 * one instance is heard by the other's worker (externalVersion moves).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeRecorder } from '../../server/changes/recorder.ts';
import type { Webhooks } from '../../server/repositories/webhooks.ts';
import { DEFAULT_EVENT_RULES } from '../../server/webhooks/events.ts';
import { deliver } from '../../server/webhooks/sender.ts';
import { signedHeaders } from '../../server/webhooks/signer.ts';
import { DeliveryWorker } from '../../server/webhooks/worker.ts';
import { type ChangeStores, openChangeStores } from '../helpers/change-stores.ts';
import { startReceiver } from '../helpers/receiver.ts';

const T = Date.UTC(2026, 2, 1);
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const stores of open.splice(0)) await stores.close();
});

async function twoInstances(): Promise<[ChangeStores, ChangeStores]> {
  const a = await openChangeStores('postgres');
  open.push(a);
  const b = await openChangeStores('postgres', { databaseUrl: a.databaseUrl! });
  open.push(b);
  return [a, b];
}

describe('the outbox shared by instances', () => {
  it('claims every due delivery exactly once across concurrent claims on two instances', async () => {
    const [a, b] = await twoInstances();
    const queued: string[] = [];
    for (let w = 0; w < 5; w++) {
      const webhook = await a.addWebhook({ spreadsheetId: 'wb_1', sourceSheetId: '1' });
      for (let i = 0; i < 60; i++) queued.push(await a.enqueue(webhook, 'row.inserted', `{"i":${i}}`, T + i));
    }
    const claimedBy = { a: [] as string[], b: [] as string[] };
    // Three workers per instance, each claiming a few at a time until nothing is due.
    const worker = async (stores: ChangeStores, into: string[]) => {
      for (;;) {
        const claimed = await stores.deliveries.claimDue(T + 1000, 7, 60_000);
        if (claimed.length === 0) return;
        into.push(...claimed.map((d) => d.id));
      }
    };
    await Promise.all([
      ...[1, 2, 3].map(() => worker(a, claimedBy.a)),
      ...[1, 2, 3].map(() => worker(b, claimedBy.b)),
    ]);
    const all = [...claimedBy.a, ...claimedBy.b];
    expect(all).toHaveLength(queued.length);
    expect(new Set(all)).toEqual(new Set(queued));
    // Both instances took part (each claim skips what the other is claiming instead of waiting for it).
    expect(claimedBy.a.length).toBeGreaterThan(0);
    expect(claimedBy.b.length).toBeGreaterThan(0);
    console.info(`outbox: ${claimedBy.a.length} claimed on one instance, ${claimedBy.b.length} on the other`);
  });

  it('a claim whose lease expired is claimed again by the other instance, with the same id and body', async () => {
    const [a, b] = await twoInstances();
    const webhook = await a.addWebhook({ spreadsheetId: 'wb_1', sourceSheetId: '1' });
    const id = await a.enqueue(webhook, 'row.inserted', '{"n":1}', T);
    expect((await a.deliveries.claimDue(T, 10, 5000)).map((d) => d.id)).toEqual([id]);
    expect(await b.deliveries.claimDue(T + 4999, 10, 5000)).toEqual([]);
    expect(await b.deliveries.nextDueAt()).toBe(T + 5000);
    expect(await b.deliveries.claimDue(T + 5000, 10, 5000)).toMatchObject([{ id, payload: '{"n":1}' }]);
    expect(await a.deliveries.claimDue(T + 5000, 10, 5000)).toEqual([]);
  });

  it('a replay requested on one instance moves the other’s external version', async () => {
    const [a, b] = await twoInstances();
    const webhook = await a.addWebhook({ spreadsheetId: 'wb_1', sourceSheetId: '1' });
    const id = await a.enqueue(webhook, 'row.inserted', '{}', T);
    const [claimed] = await a.deliveries.claimDue(T, 1, 5000);
    await a.deliveries.settle(
      claimed!,
      { trigger: 'auto', startedAt: T, durationMs: 1, status: 200, error: null, responseExcerpt: '' },
      { state: 'succeeded', nextAttemptAt: null, completedAt: T },
    );
    const before = await b.deliveries.externalVersion();
    expect(await a.deliveries.requestReplay(id, T + 1)).toBe(true);
    await expect.poll(() => b.deliveries.externalVersion(), { timeout: 2000 }).toBeGreaterThan(before);
    expect((await b.deliveries.claimDue(T + 1, 1, 5000)).map((d) => [d.id, d.replay])).toEqual([[id, true]]);
  });

  it('an idle worker on one instance sends what another instance recorded, and a replay it requested', async () => {
    const [a, b] = await twoInstances();
    const receiver = await startReceiver(() => 'not-sealed-test-secret');
    open.push(receiver);
    const tab = { spreadsheetId: 'wb_1', sourceSheetId: '1', sheetName: 'People' };
    const webhook = await a.addWebhook({ ...tab, url: receiver.url, events: ['row.inserted'] });
    const worker = new DeliveryWorker({
      deliveries: b.deliveries,
      webhooks: b.webhooks as Webhooks,
      now: Date.now,
      send: (attempt) => deliver({ ...attempt, allowLan: false }),
      sign: signedHeaders,
    });
    open.push({ close: () => worker.stop() });
    worker.start();
    const recorder = new ChangeRecorder({
      recording: a.changeRecording,
      now: Date.now,
      rules: DEFAULT_EVENT_RULES,
      onQueued: () => {}, // instance A has no worker: B's hears of the queued delivery
    });
    const people = (version: string, names: string[]) => ({
      title: 'People',
      version,
      tabs: [
        {
          ...tab,
          name: 'People',
          header: ['Name'],
          headerRow: 1,
          typed: names.map((n) => [n]),
          formatted: [],
        },
      ],
    });
    await recorder.record('wb_1', null, people('v1', ['Ada']));
    await new Promise((r) => setTimeout(r, 500)); // B's worker is idle
    const recorded = performance.now();
    await recorder.record('wb_1', people('v1', ['Ada']), people('v2', ['Ada', 'Bob']));
    await receiver.waitFor(1, 2000);
    const sentMs = performance.now() - recorded;
    expect(receiver.received[0]!.signatureOk).toBe(true);
    expect(receiver.received[0]!.json).toMatchObject({
      event: 'row.inserted',
      changed_rows: [{ after: { Name: 'Bob' } }],
    });

    await expect.poll(() => b.deliveries.nextDueAt(), { timeout: 2000 }).toBeNull();
    const id = String(receiver.received[0]!.headers['x-service-delivery']);
    const replayed = performance.now();
    expect(await a.deliveries.requestReplay(id, Date.now())).toBe(true);
    await receiver.waitFor(2, 2000);
    const replayMs = performance.now() - replayed;
    expect(receiver.received[1]!.headers['x-service-delivery']).toBe(id);
    await expect
      .poll(async () => (await a.deliveries.attemptsOf(id)).map((t) => t.trigger), { timeout: 2000 })
      .toEqual(['auto', 'replay']);
    expect((await a.deliveries.page(webhook, { limit: 10, offset: 0 })).total).toBe(1);
    console.info(
      `outbox across instances: sent ${Math.round(sentMs)} ms after recording, replay ${Math.round(replayMs)} ms`,
    );
  });
});
