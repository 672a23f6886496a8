/**
 * One order everywhere, on both databases: records made at the same instant (equal `created_at`, which a coarse
 * or stepped clock gives) come back in the order they were made, in every listing and in the order a recorded
 * change queues its notifications. Each database breaks the tie by its own insertion sequence (SQLite's rowid,
 * PostgreSQL's `seq`); random ids must never decide it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeRecorder } from '../../server/changes/recorder.ts';
import { isAppError } from '../../server/errors.ts';
import type { SpreadsheetSnapshot } from '../../server/sources/source.ts';
import { DEFAULT_EVENT_RULES } from '../../server/webhooks/events.ts';
import { openTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

/** Enough records that an order by random ids would show (1 in 8! to pass by chance). */
const MANY = 8;
const AT = new Date('2026-03-01T00:00:00.000Z');

function snapshot(version: string, names: string[]): SpreadsheetSnapshot {
  return {
    title: 't',
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
  };
}

describe.each(STORE_KINDS)('records made at one instant, in %s', (kind) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await openTestStore(kind, { clock: () => AT });
  });
  afterEach(() => store.close());

  const hooks = async (spreadsheetId: string): Promise<string[]> => {
    const ids: string[] = [];
    for (let i = 0; i < MANY; i++) {
      const made = await store.webhooks.create({
        url: `https://hooks.example.com/${i}`,
        spreadsheetId,
        sheetName: 'People',
        sourceSheetId: '1',
        events: ['row.inserted'],
        apiKeyId: null,
        secret: 'whsec_test',
      });
      ids.push(made.id);
    }
    return ids;
  };

  it('lists connections, keys and webhooks in the order they were made', async () => {
    const connections: string[] = [];
    for (let i = 0; i < MANY; i++) {
      const c = await store.connections.create({
        name: `c${i}`,
        sourceKind: 'workbook',
        idPrefix: 'wb_',
        location: `/books/${i}.xlsx`,
      });
      connections.push(c.spreadsheetId);
    }
    expect((await store.connections.list()).map((c) => c.spreadsheetId)).toEqual(connections);
    const keys: string[] = [];
    for (let i = 0; i < MANY; i++) keys.push((await store.keys.create({ name: `k${i}` })).record.id);
    expect((await store.keys.list()).map((k) => k.id)).toEqual(keys);
    const webhooks = await hooks(connections[0]!);
    expect((await store.webhooks.list()).map((w) => w.id)).toEqual(webhooks);
  });

  it('names the webhooks that keep a spreadsheet from being removed in the order they were made', async () => {
    const c = await store.connections.create({
      name: 'c',
      sourceKind: 'workbook',
      idPrefix: 'wb_',
      location: '/books/c.xlsx',
    });
    const webhooks = await hooks(c.spreadsheetId);
    const refused = await store.connections.remove(c.spreadsheetId).catch((err: unknown) => err);
    expect(isAppError(refused) && refused.details).toEqual({ webhooks });
    expect(await store.connections.removeWithWebhooks(c.spreadsheetId, { force: true })).toEqual({
      removed: true,
      webhooksRemoved: webhooks,
    });
  });

  it("queues a recorded change's notifications for the tab's webhooks in the order they were made", async () => {
    const webhooks = await hooks('wb_1');
    let now = AT.getTime();
    const recorder = new ChangeRecorder({
      recording: store.changeRecording,
      now: () => now++,
      rules: DEFAULT_EVENT_RULES,
      onQueued: () => {},
    });
    const v1 = snapshot('v1', ['Ada']);
    await recorder.record('wb_1', null, v1);
    await recorder.record('wb_1', v1, snapshot('v2', ['Ada', 'Bob']));
    // The whole log, newest first: the last queued comes first.
    const { data } = await store.deliveryLog.page({ limit: 100, offset: 0 });
    expect(data.map((d) => d.webhookId).reverse()).toEqual(webhooks);
  });
});
