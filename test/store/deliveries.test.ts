/**
 * The outbox and its log behind their interfaces (repositories/deliveries.ts, delivery-log.ts), once per store:
 * SQLite in a data dir and PostgreSQL on the test cluster, with the same observable rules. The webhook worker
 * suites (test/webhooks/) drive them through the service.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../server/repositories/deliveries.ts';
import { CHANGE_STORE_KINDS, type ChangeStores, openChangeStores } from '../helpers/change-stores.ts';

const tab = { spreadsheetId: 'wb_1', sourceSheetId: '1' };
const day = 86_400_000;
const T = Date.UTC(2026, 5, 1);
const attempt = (status: number, startedAt = T): AttemptOutcome => ({
  trigger: 'auto',
  startedAt,
  durationMs: 1,
  status,
  error: status === 200 ? null : `HTTP ${status}`,
  responseExcerpt: '',
});

describe.each(CHANGE_STORE_KINDS)('the outbox in %s', (kind) => {
  let s: ChangeStores;
  beforeEach(async () => {
    s = await openChangeStores(kind);
  });
  afterEach(() => s.close());

  it('deleting a webhook removes its deliveries', async () => {
    const webhook = await s.addWebhook(tab);
    const id = await s.enqueue(webhook, 'row.inserted', '{}', Date.now());
    await s.removeWebhook(webhook);
    expect(await s.deliveries.get(id)).toBeNull();
  });

  it('forgets finished deliveries older than the retention, keeps pending ones and recent ones', async () => {
    const webhook = await s.addWebhook(tab);
    const { deliveries } = s;
    const old = await s.enqueue(webhook, 'row.inserted', '{}', T - 40 * day);
    const recent = await s.enqueue(webhook, 'row.inserted', '{}', T - 2 * day);
    const pending = await s.enqueue(webhook, 'row.inserted', '{}', T - 40 * day);
    await deliveries.settle((await deliveries.get(old))!, attempt(200), {
      state: 'succeeded',
      nextAttemptAt: null,
      completedAt: T - 40 * day,
    });
    await deliveries.settle((await deliveries.get(recent))!, attempt(200), {
      state: 'failed',
      nextAttemptAt: null,
      completedAt: T - 2 * day,
    });
    expect(await deliveries.purgeFinished(T - 30 * day)).toBe(1);
    expect(await deliveries.get(old)).toBeNull();
    expect(await deliveries.get(recent)).not.toBeNull();
    expect(await deliveries.get(pending)).not.toBeNull();
    expect(await deliveries.attemptsOf(old)).toEqual([]);
  });

  it('claims what is due for active webhooks under a lease, and again once the lease expired', async () => {
    const webhook = await s.addWebhook(tab);
    const paused = await s.addWebhook(tab);
    await s.setWebhookStatus(paused, 'paused');
    const a = await s.enqueue(webhook, 'row.inserted', '"a"', T);
    const b = await s.enqueue(webhook, 'row.updated', '"b"', T + 10);
    await s.enqueue(paused, 'row.inserted', '"p"', T);
    expect(await s.deliveries.nextDueAt()).toBe(T);

    expect(await s.deliveries.claimDue(T - 1, 10, 1000)).toEqual([]);
    const first = await s.deliveries.claimDue(T + 10, 10, 1000, (d) => d.id !== b);
    expect(first).toMatchObject([
      { id: a, webhookId: webhook, event: 'row.inserted', payload: '"a"', state: 'in_flight', attempts: 0 },
    ]);
    expect((await s.deliveries.get(a))!.state).toBe('in_flight');
    // Pending b is due at T + 10; the lease of a ends at T + 1010.
    expect(await s.deliveries.nextDueAt()).toBe(T + 10);
    expect((await s.deliveries.claimDue(T + 20, 10, 1000)).map((d) => d.id)).toEqual([b]);
    expect(await s.deliveries.nextDueAt()).toBe(T + 1010);
    expect(await s.deliveries.claimDue(T + 1009, 10, 1000)).toEqual([]);
    // The lease of a expired (its worker died): claimed again, with the same id and body.
    expect(await s.deliveries.claimDue(T + 1010, 10, 1000)).toMatchObject([{ id: a, payload: '"a"' }]);

    await s.setWebhookStatus(paused, 'active');
    expect((await s.deliveries.claimDue(T + 1010, 10, 1000)).map((d) => d.event)).toEqual(['row.inserted']);
  });

  it('settles an attempt and its next state together; a replay is one new attempt, never while in flight', async () => {
    const webhook = await s.addWebhook(tab);
    const id = await s.enqueue(webhook, 'row.inserted', '{}', T);
    const [claimed] = await s.deliveries.claimDue(T, 1, 5000);
    expect(await s.deliveries.requestReplay(id, T)).toBe(false);
    const headers = { 'content-type': 'application/json', 'x-service-delivery': id };
    await s.deliveries.settle(
      claimed!,
      { ...attempt(500), targetAddress: '127.0.0.1', targetKind: 'loopback', requestHeaders: headers },
      { state: 'pending', nextAttemptAt: T + 30_000, completedAt: null },
    );
    expect(await s.deliveries.get(id)).toMatchObject({
      state: 'pending',
      attempts: 1,
      nextAttemptAt: T + 30_000,
    });
    expect(await s.deliveries.attemptsOf(id)).toEqual([
      {
        attempt: 1,
        trigger: 'auto',
        startedAt: T,
        durationMs: 1,
        status: 500,
        error: 'HTTP 500',
        responseExcerpt: '',
        targetAddress: '127.0.0.1',
        targetKind: 'loopback',
        requestHeaders: headers,
      },
    ]);
    // Awaiting a retry: the replay brings it forward and is not flagged as one.
    expect(await s.deliveries.requestReplay(id, T + 1000)).toBe(true);
    expect(await s.deliveries.get(id)).toMatchObject({
      state: 'pending',
      nextAttemptAt: T + 1000,
      replay: false,
    });
    const [retry] = await s.deliveries.claimDue(T + 1000, 1, 5000);
    await s.deliveries.settle(retry!, attempt(200), {
      state: 'succeeded',
      nextAttemptAt: null,
      completedAt: T + 1001,
    });
    expect(await s.deliveries.get(id)).toMatchObject({
      state: 'succeeded',
      attempts: 2,
      completedAt: T + 1001,
    });
    // Finished: a replay is one extra attempt, flagged.
    expect(await s.deliveries.requestReplay(id, T + 2000)).toBe(true);
    expect(await s.deliveries.get(id)).toMatchObject({
      state: 'pending',
      replay: true,
      nextAttemptAt: T + 2000,
      completedAt: null,
    });
    expect(await s.deliveries.requestReplay('dlv_none', T)).toBe(false);
  });

  it('pages a webhook’s deliveries and the whole log newest first, with totals and filters', async () => {
    const one = await s.addWebhook(tab);
    const two = await s.addWebhook(tab);
    const ids = [
      await s.enqueue(one, 'row.inserted', '{}', T),
      await s.enqueue(one, 'row.updated', '{}', T + 1),
      await s.enqueue(two, 'row.inserted', '{}', T + 1),
      await s.enqueue(one, 'row.inserted', '{}', T + 2),
    ];
    const [claimed] = await s.deliveries.claimDue(T, 1, 5000);
    await s.deliveries.settle(claimed!, attempt(200), {
      state: 'succeeded',
      nextAttemptAt: null,
      completedAt: T,
    });

    const page = await s.deliveries.page(one, { limit: 2, offset: 0 });
    expect(page.total).toBe(3);
    expect(page.data.map((d) => d.id)).toEqual([ids[3], ids[1]]);
    expect((await s.deliveries.page(one, { limit: 10, offset: 2 })).data.map((d) => d.id)).toEqual([ids[0]]);
    expect(await s.deliveries.page(one, { state: 'succeeded', limit: 10, offset: 0 })).toMatchObject({
      total: 1,
      data: [{ id: ids[0] }],
    });

    const log = s.deliveryLog;
    expect((await log.page({ limit: 10, offset: 0 })).data.map((d) => d.id)).toEqual([
      ids[3],
      ids[2],
      ids[1],
      ids[0],
    ]);
    expect(await log.page({ event: 'row.inserted', state: 'pending', limit: 10, offset: 0 })).toMatchObject({
      total: 2,
      data: [{ id: ids[3] }, { id: ids[2] }],
    });
    expect((await log.page({ webhookId: two, limit: 10, offset: 0 })).total).toBe(1);
  });

  it('a fingerprint that moves with every queueing, claim, settling and replay; each webhook’s health', async () => {
    const webhook = await s.addWebhook(tab);
    const seen = new Set([await s.deliveryLog.fingerprint()]);
    const moved = async () => {
      const now = await s.deliveryLog.fingerprint();
      expect(seen.has(now)).toBe(false);
      seen.add(now);
    };
    expect(await s.deliveryLog.health(webhook)).toEqual({ last: null, failuresInARow: 0 });
    const id = await s.enqueue(webhook, 'row.inserted', '{}', T);
    await moved();
    let [d] = await s.deliveries.claimDue(T, 1, 5000);
    await moved();
    await s.deliveries.settle(d!, attempt(500, T), {
      state: 'pending',
      nextAttemptAt: T + 30_000,
      completedAt: null,
    });
    await moved();
    [d] = await s.deliveries.claimDue(T + 30_000, 1, 5000);
    await s.deliveries.settle(d!, attempt(502, T + 30_000), {
      state: 'pending',
      nextAttemptAt: T + 330_000,
      completedAt: null,
    });
    expect(await s.deliveryLog.health(webhook)).toEqual({
      last: { startedAt: T + 30_000, status: 502, error: 'HTTP 502', ok: false },
      failuresInARow: 2,
    });
    [d] = await s.deliveries.claimDue(T + 330_000, 1, 5000);
    await s.deliveries.settle(d!, attempt(200, T + 330_000), {
      state: 'succeeded',
      nextAttemptAt: null,
      completedAt: T + 330_000,
    });
    await moved();
    expect(await s.deliveryLog.health(webhook)).toEqual({
      last: { startedAt: T + 330_000, status: 200, error: null, ok: true },
      failuresInARow: 0,
    });
    await s.deliveries.requestReplay(id, T + 400_000);
    await moved();
  });
});
