import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Connections } from '../../server/repositories/connections.ts';
import type { Keys } from '../../server/repositories/keys.ts';
import { hashKey } from '../../server/repositories/rules/keys.ts';
import { DB_FILE_NAME, openDatabase } from '../../server/store/db.ts';
import { sqliteRepositoriesOver } from '../../server/store/sqlite-repositories.ts';
import { openTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('Keys (%s)', (kind) => {
  let dir: string;
  let opened: TestStore;
  let now: Date;
  let keys: Keys;
  let connections: Connections;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-keys-'));
    now = new Date('2025-06-01T12:00:00.000Z');
    opened = await openTestStore(kind, { clock: () => now });
    keys = opened.keys;
    connections = opened.connections;
  });
  afterEach(async () => {
    await opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('create', () => {
    it('makes an sp_ key and a public key_ id with defaults', async () => {
      const { record, key } = await keys.create();
      expect(key).toMatch(/^sp_[A-Za-z0-9_-]{43}$/); // 32 bytes
      expect(record).toEqual({
        id: expect.stringMatching(/^key_[A-Za-z0-9_-]{10}$/),
        name: '',
        prefix: key.slice(0, 12),
        scope: 'read',
        plan: 'free',
        perSecond: null,
        daily: null,
        allowFormulas: false,
        connections: [],
        createdAt: '2025-06-01T12:00:00.000Z',
        lastUsedAt: null,
        revokedAt: null,
      });
    });

    it('stores every option', async () => {
      const a = await connections.create({
        name: 'a',
        sourceKind: 'workbook',
        idPrefix: 'wb_',
        location: path.join(dir, 'a.xlsx'),
      });
      const b = await connections.create({
        name: 'b',
        sourceKind: 'workbook',
        idPrefix: 'wb_',
        location: path.join(dir, 'b.xlsx'),
      });
      const { record } = await keys.create({
        name: 'ci',
        scope: 'read_write',
        plan: 'enterprise',
        connections: [b.spreadsheetId, a.spreadsheetId, b.spreadsheetId],
        allowFormulas: true,
        perSecond: 5,
        daily: 1000,
      });
      expect(record).toMatchObject({
        name: 'ci',
        scope: 'read_write',
        plan: 'enterprise',
        allowFormulas: true,
        perSecond: 5,
        daily: 1000,
      });
      expect(record.connections).toEqual([a.spreadsheetId, b.spreadsheetId].sort());
      expect(await keys.get(record.id)).toEqual(record);
    });

    it('rejects unknown connections, scopes, plans and bad limits, creating nothing', async () => {
      await expect(keys.create({ connections: ['wb_unknown'] })).rejects.toThrow(
        /Unknown connection 'wb_unknown'/,
      );
      await expect(keys.create({ scope: 'admin' as never })).rejects.toThrow(/Unknown scope/);
      await expect(keys.create({ plan: 'gold' as never })).rejects.toThrow(/Unknown plan/);
      await expect(keys.create({ plan: 'enterprise', perSecond: -1, daily: 5 })).rejects.toThrow(/perSecond/);
      await expect(keys.create({ plan: 'enterprise', perSecond: 5, daily: 1.5 })).rejects.toThrow(/daily/);
      await expect(keys.create({ plan: 'enterprise', perSecond: 5 })).rejects.toThrow(/Enterprise keys need/);
      await expect(keys.create({ plan: 'pro', daily: 5 })).rejects.toThrow(/for enterprise keys/);
      expect(await keys.list()).toEqual([]);
    });
  });

  describe('lookups', () => {
    it('keeps only a hash at rest: no stored row holds the key', async () => {
      const created = [await keys.create({ name: 'one' }), await keys.create({ name: 'two' })];
      const stored = JSON.stringify(await opened.sql('SELECT * FROM api_keys'));
      for (const { key, record } of created) {
        expect(stored.includes(key.slice(12))).toBe(false);
        expect(stored.includes(hashKey(key))).toBe(true);
        expect(stored.includes(record.id)).toBe(true);
      }
    });

    // Each handle keeps the keys it looked up (repositories/registry-cache.ts). Its own change drops them at once;
    // another's: in SQLite at its next lookup (the file's data_version moved), in PostgreSQL when NOTIFY arrives,
    // within a second at worst (docs/api.md).
    it('a revocation or plan change holds on the next lookup through the same handle, and through another within a second', async () => {
      const other = await opened.again();
      const { record, key } = await keys.create();
      expect((await keys.findByKey(key))?.revokedAt).toBeNull();
      expect((await other.keys.findByKey(key))?.revokedAt).toBeNull();
      expect(await keys.revoke(record.id)).toBe(true);
      expect((await keys.findByKey(key))?.revokedAt).toBe(now.toISOString());
      if (kind === 'sqlite') expect((await other.keys.findByKey(key))?.revokedAt).toBe(now.toISOString());
      const within = { timeout: 1000, interval: 10 };
      await expect
        .poll(async () => (await other.keys.findByKey(key))?.revokedAt, within)
        .toBe(now.toISOString());
      await other.keys.setPlan(record.id, { plan: 'pro' });
      expect((await other.keys.findByKey(key))?.plan).toBe('pro');
      if (kind === 'sqlite') expect((await keys.findByKey(key))?.plan).toBe('pro');
      await expect.poll(async () => (await keys.findByKey(key))?.plan, within).toBe('pro');
    });
    it('finds a key by its plaintext, and nothing for anything else', async () => {
      const { record, key } = await keys.create({ name: 'x' });
      await keys.create({ name: 'y' });
      expect(await keys.findByKey(key)).toEqual(record);
      expect(await keys.findByKey(`${key}x`)).toBeNull();
      expect(await keys.findByKey(key.slice(0, -1))).toBeNull();
      expect(await keys.findByKey('')).toBeNull();
      expect(await keys.findByKey(record.id)).toBeNull();
      expect(await keys.findByKey(hashKey(key))).toBeNull();
      expect(await keys.findByKey(`sp_${'a'.repeat(10_000)}`)).toBeNull();
    });

    it('lists keys in creation order without the key', async () => {
      const a = await keys.create({ name: 'a' });
      now = new Date(now.getTime() + 1000);
      const b = await keys.create({ name: 'b' });
      const listed = await keys.list();
      expect(listed.map((k) => k.id)).toEqual([a.record.id, b.record.id]);
      expect(JSON.stringify(listed)).not.toContain(a.key);
      expect(await keys.get('key_missing')).toBeNull();
    });

    it('revokes: the key is still found (so callers can say "revoked") but marked', async () => {
      const { record, key } = await keys.create();
      now = new Date('2025-06-02T00:00:00.000Z');
      expect(await keys.revoke(record.id)).toBe(true);
      expect((await keys.findByKey(key))?.revokedAt).toBe('2025-06-02T00:00:00.000Z');
      expect(await keys.revoke(record.id)).toBe(false); // already revoked: timestamp unchanged
      now = new Date('2025-06-03T00:00:00.000Z');
      expect((await keys.get(record.id))?.revokedAt).toBe('2025-06-02T00:00:00.000Z');
      expect(await keys.revoke('key_missing')).toBe(false);
    });

    it('keeps a key limited to a removed spreadsheet limited (it does not widen to all)', async () => {
      const a = await connections.create({
        name: 'a',
        sourceKind: 'workbook',
        idPrefix: 'wb_',
        location: path.join(dir, 'a.xlsx'),
      });
      const { record } = await keys.create({ connections: [a.spreadsheetId] });
      await connections.remove(a.spreadsheetId);
      expect((await keys.get(record.id))?.connections).toEqual([a.spreadsheetId]);
    });
  });

  describe('touch', () => {
    it('writes last-used at most once per 10 s per key', async () => {
      const { record } = await keys.create();
      const other = (await keys.create()).record;
      const t0 = now.getTime();
      const at = (ms: number) => {
        now = new Date(t0 + ms);
      };

      expect(await keys.touch(record.id)).toBe(true);
      expect((await keys.get(record.id))?.lastUsedAt).toBe(new Date(t0).toISOString());

      at(5_000);
      expect(await keys.touch(record.id)).toBe(false);
      at(9_999);
      expect(await keys.touch(record.id)).toBe(false);
      expect((await keys.get(record.id))?.lastUsedAt).toBe(new Date(t0).toISOString());
      expect(await keys.touch(other.id)).toBe(true); // throttled per key

      at(10_000);
      expect(await keys.touch(record.id)).toBe(true);
      expect((await keys.get(record.id))?.lastUsedAt).toBe(new Date(t0 + 10_000).toISOString());
      at(15_000);
      expect(await keys.touch(record.id)).toBe(false);
      at(25_000);
      expect(await keys.touch(record.id)).toBe(true);
    });
  });

  describe('plans', () => {
    it("changes a key's plan and enterprise numbers, validating them", async () => {
      const { record } = await keys.create();
      expect(record.plan).toBe('free');
      expect(await keys.setPlan(record.id, { plan: 'pro' })).toMatchObject({
        plan: 'pro',
        perSecond: null,
        daily: null,
      });
      expect(await keys.setPlan(record.id, { plan: 'enterprise', perSecond: 40, daily: 9000 })).toMatchObject(
        {
          plan: 'enterprise',
          perSecond: 40,
          daily: 9000,
        },
      );
      await expect(keys.setPlan(record.id, { plan: 'enterprise' })).rejects.toThrow(/Enterprise keys need/);
      expect(await keys.get(record.id)).toMatchObject({ plan: 'enterprise', perSecond: 40 });
      expect(await keys.setPlan('key_missing', { plan: 'pro' })).toBeNull();
    });
  });
});

// SQLite's own bytes and counters: what the file on disk holds, and SQLite's total_changes().
describe('keys in SQLite files', () => {
  let db: Database.Database;
  let keys: Keys;
  let dir: string;
  const now = new Date('2025-06-01T12:00:00.000Z');
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-keys-'));
    db = openDatabase(dir);
    keys = sqliteRepositoriesOver(db, dir, () => now).keys;
  });
  afterEach(() => {
    if (db.open) db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Every byte SQLite has written for this database (main file, WAL and shared-memory index). */
  function rawBytes(): Buffer {
    const base = path.join(dir, DB_FILE_NAME);
    return Buffer.concat(
      [base, `${base}-wal`, `${base}-shm`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)),
    );
  }

  it('keeps only a hash at rest: the database files never contain the key', async () => {
    const created = [
      await keys.create({ name: 'one' }),
      await keys.create({ name: 'two', scope: 'read_write' }),
    ];
    const bytes = rawBytes();
    for (const { key, record } of created) {
      expect(bytes.includes(key)).toBe(false);
      expect(bytes.includes(key.slice(12))).toBe(false); // not even the secret part after the prefix
      expect(bytes.includes(hashKey(key))).toBe(true); // sanity: we are looking at the right bytes
      expect(bytes.includes(record.id)).toBe(true);
    }
    db.close(); // checkpoints the WAL into the main file
    const closed = rawBytes();
    for (const { key } of created) expect(closed.includes(key)).toBe(false);
  });
  it('does not write when nothing changed on disk (no statement runs while throttled)', async () => {
    const { record } = await keys.create();
    await keys.touch(record.id);
    const changesBefore = db.prepare('SELECT total_changes()').pluck().get() as number;
    for (let i = 0; i < 100; i++) await keys.touch(record.id);
    expect(db.prepare('SELECT total_changes()').pluck().get()).toBe(changesBefore);
  });
});
