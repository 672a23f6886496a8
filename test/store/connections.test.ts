import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../server/errors.ts';
import { ConnectionStore } from '../../server/store/connections.ts';
import { openDatabase } from '../../server/store/db.ts';

let dir: string;
let db: Database.Database;
let store: ConnectionStore;
const clock = () => new Date('2025-01-02T03:04:05.000Z');

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-conn-'));
  db = openDatabase(dir);
  store = new ConnectionStore(db, clock);
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const file = (name: string) => path.join(dir, name);
/** A workbook connection named `name` for the file `fileName` in the test's folder. */
const workbook = (name: string, fileName: string) =>
  store.create({ name, sourceKind: 'workbook', idPrefix: 'wb_', location: file(fileName) });

describe('ConnectionStore', () => {
  it('creates a workbook connection with random opaque ids', async () => {
    const c = await workbook('orders.xlsx', 'orders.xlsx');
    expect(c.spreadsheetId).toMatch(/^wb_[A-Za-z0-9_-]{16}$/);
    expect(c.id).toBe(c.spreadsheetId);
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
    // Also from a second handle on the same file (another process).
    const db2 = openDatabase(dir);
    try {
      expect(
        await new ConnectionStore(db2).create({
          name: 'a',
          sourceKind: 'workbook',
          idPrefix: 'wb_',
          location: file('a.xlsx'),
        }),
      ).toEqual(a);
    } finally {
      db2.close();
    }
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
    db.close();
    db = openDatabase(dir);
    expect(await new ConnectionStore(db).list()).toEqual([a]);
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
