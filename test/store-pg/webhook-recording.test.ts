/**
 * What the PostgreSQL change recording does with webhooks inside its transaction, against a real database: the
 * webhooks of a tab, a rename, and payload timestamps that never repeat, also when instances record at once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../server/store-pg/pg-store.ts';
import { tx } from '../../server/store-pg/pool.ts';
import { webhooksInRecording as w } from '../../server/store-pg/webhooks.ts';
import { registerWebhook } from '../../server/webhooks/register.ts';
import { freshDatabase, TEST_SECRET_KEY } from '../helpers/postgres.ts';

let dir: string;
let store: PgStore;
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-pg-hooks-'));
  store = await openPgStore(
    { databaseUrl: await freshDatabase(), secretKey: TEST_SECRET_KEY, leaseTtlMs: 5000 },
    { dataDir: dir },
  );
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const input = {
  url: 'https://example.com/hook',
  spreadsheetId: 'wb_1',
  sheetName: 'S',
  sourceSheetId: '1',
  events: ['row.inserted' as const],
  apiKeyId: null,
};

describe('webhooks inside a PostgreSQL recording', () => {
  it('keeps payload timestamps unique and increasing per webhook, bumping by 1 ms', async () => {
    const { record } = await registerWebhook(store.webhooks, input);
    const other = (await registerWebhook(store.webhooks, input)).record;
    const t = Date.UTC(2026, 0, 1);
    expect(await w.nextTimestamp(store.pool, record.id, t)).toBe(t);
    expect(await w.nextTimestamp(store.pool, record.id, t)).toBe(t + 1);
    expect(await w.nextTimestamp(store.pool, record.id, t - 50)).toBe(t + 2); // a clock step back never repeats
    expect(await w.nextTimestamp(store.pool, other.id, t)).toBe(t); // per webhook
    expect(await w.nextTimestamp(store.pool, 'wh_missing', t)).toBeNull();
  });

  it('never repeats a timestamp when recordings on several connections stamp at once', async () => {
    const { record } = await registerWebhook(store.webhooks, input);
    const t = Date.UTC(2026, 0, 1);
    const stamps = await Promise.all(
      Array.from({ length: 8 }, () => tx(store.pool, (client) => w.nextTimestamp(client, record.id, t))),
    );
    expect(new Set(stamps).size).toBe(8);
    expect([...stamps].sort((a, b) => a! - b!)).toEqual(Array.from({ length: 8 }, (_, i) => t + i));
  });

  it("lists a tab's webhooks in creation order and renames them with the tab", async () => {
    const a = (await registerWebhook(store.webhooks, input)).record;
    await registerWebhook(store.webhooks, { ...input, sourceSheetId: '2' });
    const b = (await registerWebhook(store.webhooks, input)).record;
    await store.webhooks.update(b.id, { status: 'paused' });
    expect((await w.forTab(store.pool, 'wb_1', '1')).map((h) => h.id)).toEqual([a.id, b.id]);
    expect(await w.renameTab(store.pool, 'wb_1', '1', 'Renamed')).toBe(2);
    expect(await w.renameTab(store.pool, 'wb_1', '1', 'Renamed')).toBe(0);
    expect((await store.webhooks.get(a.id))?.sheetName).toBe('Renamed');
  });
});
