import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../server/errors.ts';
import type { Connections } from '../../server/repositories/connections.ts';
import { openTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('Connections (%s)', (kind) => {
  let dir: string;
  let opened: TestStore;
  let store: Connections;
  const clock = () => new Date('2025-01-02T03:04:05.000Z');

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-conn-'));
    opened = await openTestStore(kind, { clock });
    store = opened.connections;
  });
  afterEach(async () => {
    await opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const file = (name: string) => path.join(dir, name);
  /** A workbook connection named `name` for the file `fileName` in the test's folder. */
  const workbook = (name: string, fileName: string) =>
    store.create({ name, sourceKind: 'workbook', idPrefix: 'wb_', location: file(fileName) });

  it('creates a workbook connection with random opaque ids', async () => {
    const c = await workbook('orders.xlsx', 'orders.xlsx');
    expect(c.spreadsheetId).toMatch(/^wb_[A-Za-z0-9_-]{16}$/);
    expect(c.spreadsheetId).toBe(c.spreadsheetId);
    expect(c.userKey).toMatch(/^[A-Za-z0-9_-]{24}$/); // 18 bytes = 144 bits
    expect(c).toMatchObject({
      name: 'orders.xlsx',
      sourceKind: 'workbook',
      location: file('orders.xlsx'),
      publicRead: false,
      createdAt: '2025-01-02T03:04:05.000Z',
    });
    const other = await workbook('b.csv', 'b.csv');
    expect(other.spreadsheetId).not.toBe(c.spreadsheetId);
    expect(other.userKey).not.toBe(c.userKey);
  });

  it('never makes a userKey that starts with "-", which a command line would read as an option', async () => {
    // 300 keys: with a first character drawn from all 64, at least one would start with "-" 99% of the time.
    const keys: string[] = [];
    for (let i = 0; i < 300; i++) keys.push((await workbook(`t${i}.csv`, `t${i}.csv`)).userKey);
    expect(new Set(keys).size).toBe(300);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{23}$/);
  });

  it('looks connections up by spreadsheet id and by userKey', async () => {
    const c = await workbook('a', 'a.xlsx');
    expect(await store.getBySpreadsheetId(c.spreadsheetId)).toEqual(c);
    expect(await store.getByUserKey(c.userKey)).toEqual(c);
    expect(await store.resolve(c.userKey)).toEqual(c);
    expect(await store.getByLocation('workbook', file('a.xlsx'))).toEqual(c);
    expect(await store.getBySpreadsheetId(c.userKey)).toBeNull();
    expect(await store.getByUserKey(c.spreadsheetId)).toBeNull();
    expect(await store.getBySpreadsheetId('wb_nope')).toBeNull();
  });

  it('returns the existing connection when the same absolute path is registered again', async () => {
    const a = await workbook('a', 'a.xlsx');
    const again = await workbook('renamed', './x/../a.xlsx');
    expect(again).toEqual(a);
    // Also from a second handle on the same database (another process, another instance).
    const other = await opened.again();
    expect(
      await other.connections.create({
        name: 'a',
        sourceKind: 'workbook',
        idPrefix: 'wb_',
        location: file('a.xlsx'),
      }),
    ).toEqual(a);
    expect(await store.list()).toHaveLength(1);
  });

  it('registers a spreadsheet once when two handles register it at the same moment', async () => {
    const other = await opened.again();
    const input = { name: 'a', sourceKind: 'workbook', idPrefix: 'wb_', location: file('race.xlsx') };
    const made = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 ? other.connections : store).create(input)),
    );
    expect(new Set(made.map((c) => c.spreadsheetId)).size).toBe(1);
    expect(await store.list()).toHaveLength(1);
  });

  it('lists in creation order', async () => {
    const a = await workbook('a', 'a.xlsx');
    const b = await workbook('b', 'b.csv');
    expect((await store.list()).map((c) => c.spreadsheetId)).toEqual([a.spreadsheetId, b.spreadsheetId]);
  });

  it('removes by spreadsheet id or userKey', async () => {
    const a = await workbook('a', 'a.xlsx');
    const b = await workbook('b', 'b.xlsx');
    expect(await store.remove(a.spreadsheetId)).toBe(true);
    expect(await store.remove(b.userKey)).toBe(true);
    expect(await store.remove(a.spreadsheetId)).toBe(false);
    expect(await store.list()).toEqual([]);
    // Re-registering a removed file makes a new connection with new ids.
    const again = await workbook('a', 'a.xlsx');
    expect(again.spreadsheetId).not.toBe(a.spreadsheetId);
  });

  // Lookups by id and userKey are kept per handle (repositories/registry-cache.ts): a removal or a change of
  // public read holds on the next lookup through the same handle, and through another in SQLite (data_version)
  // or within a second in PostgreSQL (NOTIFY).
  it('a removal or a change of public read holds on lookups it had answered before', async () => {
    const other = await opened.again();
    const a = await workbook('a', 'a.xlsx');
    for (const handle of [store, other.connections]) {
      expect((await handle.getByUserKey(a.userKey))?.publicRead).toBe(false);
      expect(await handle.getBySpreadsheetId(a.spreadsheetId)).not.toBeNull();
    }
    expect(await store.setPublicRead(a.spreadsheetId, true)).toBe(true);
    expect((await store.getByUserKey(a.userKey))?.publicRead).toBe(true);
    if (kind === 'sqlite') expect((await other.connections.getByUserKey(a.userKey))?.publicRead).toBe(true);
    const within = { timeout: 1000, interval: 10 };
    await expect
      .poll(async () => (await other.connections.getByUserKey(a.userKey))?.publicRead, within)
      .toBe(true);
    expect(await other.connections.remove(a.userKey)).toBe(true);
    expect(await other.connections.getBySpreadsheetId(a.spreadsheetId)).toBeNull();
    if (kind === 'sqlite') expect(await store.getByUserKey(a.userKey)).toBeNull();
    await expect.poll(async () => store.getByUserKey(a.userKey), within).toBeNull();
    await expect.poll(async () => store.getBySpreadsheetId(a.spreadsheetId), within).toBeNull();
  });

  it('refuses to remove a watched spreadsheet unless forced, then removes its webhooks too', async () => {
    const a = await workbook('a', 'a.xlsx');
    const hook = (url: string) =>
      opened.webhooks.create({
        url,
        spreadsheetId: a.spreadsheetId,
        sheetName: 'S',
        sourceSheetId: '1',
        events: ['row.inserted'],
        apiKeyId: null,
        secret: 'whsec_test',
      });
    const one = await hook('https://example.com/1');
    const two = await hook('https://example.com/2');
    const refused = await store.removeWithWebhooks(a.userKey).catch((err: unknown) => err);
    expect(isAppError(refused) && refused.code).toBe('conflict');
    expect(isAppError(refused) && refused.details).toEqual({ webhooks: [one.id, two.id] });
    expect((refused as Error).message).toMatch(/has 2 webhooks .* remove them first/);
    expect(await store.getBySpreadsheetId(a.spreadsheetId)).toEqual(a);
    expect(await opened.webhooks.list()).toHaveLength(2);

    expect(await store.removeWithWebhooks(a.userKey, { force: true })).toEqual({
      removed: true,
      webhooksRemoved: [one.id, two.id],
    });
    expect(await store.getBySpreadsheetId(a.spreadsheetId)).toBeNull();
    expect(await opened.webhooks.list()).toEqual([]);
    expect(await opened.webhooks.hasAny(a.spreadsheetId)).toBe(false);
    expect(opened.webhooks.hasAnyNow(a.spreadsheetId)).toBe(false); // at once on the instance that removed it
    expect(await store.removeWithWebhooks(a.userKey, { force: true })).toEqual({
      removed: false,
      webhooksRemoved: [],
    });
  });

  it('toggles public read', async () => {
    const a = await workbook('a', 'a.xlsx');
    expect(await store.setPublicRead(a.spreadsheetId, true)).toBe(true);
    expect((await store.getBySpreadsheetId(a.spreadsheetId))?.publicRead).toBe(true);
    expect(await store.setPublicRead(a.spreadsheetId, false)).toBe(true);
    expect((await store.getByUserKey(a.userKey))?.publicRead).toBe(false);
    expect(await store.setPublicRead('wb_missing', true)).toBe(false);
  });

  it('persists across reopening', async () => {
    const a = await workbook('a', 'a.xlsx');
    const reopened = await opened.again();
    expect(await reopened.connections.list()).toEqual([a]);
  });

  it("rejects empty names, kinds and locations (canonical locations are the kind's job)", async () => {
    const noLocation = async () =>
      await store.create({ name: 'a', sourceKind: 'workbook', idPrefix: 'wb_', location: '' });
    await expect(noLocation()).rejects.toThrow(/Location/);
    try {
      await noLocation();
    } catch (err) {
      expect(isAppError(err) && err.code).toBe('invalid_parameter');
    }
    await expect(
      store.create({ name: 'a', sourceKind: '', idPrefix: 'wb_', location: file('a.xlsx') }),
    ).rejects.toThrow(/kind/);
    await expect(
      store.create({ name: '  ', sourceKind: 'workbook', idPrefix: 'wb_', location: file('a.xlsx') }),
    ).rejects.toThrow(/name/);
    expect(await store.list()).toEqual([]);
  });
});
