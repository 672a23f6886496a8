import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/store/db.ts';
import { IDEMPOTENCY_TTL_MS, IdempotencyStore } from '../../server/store/idempotency.ts';

let dir: string;
let db: Database.Database;
let now: number;
let store: IdempotencyStore;
const clock = () => new Date(now);

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sheetport-idem-'));
  db = openDatabase(dir);
  now = Date.parse('2025-03-01T00:00:00.000Z');
  store = new IdempotencyStore(db, clock);
});
afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const rows = () => db.prepare('SELECT COUNT(*) FROM idempotency_keys').pluck().get() as number;
const HOUR = 60 * 60 * 1000;

describe('IdempotencyStore', () => {
  it('new -> in_progress -> complete -> replay', async () => {
    expect(await store.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
    expect(await store.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'in_progress' });
    await store.complete('key_a', 'k1', 201, 'application/json; charset=utf-8', '{"ok":true}');
    const replay = {
      state: 'replay',
      status: 201,
      contentType: 'application/json; charset=utf-8',
      body: '{"ok":true}',
    };
    expect(await store.begin('key_a', 'k1', 'fp1')).toEqual(replay);
    now += 23 * HOUR;
    expect(await store.begin('key_a', 'k1', 'fp1')).toEqual(replay);
    expect(rows()).toBe(1);
  });

  it('the same key with another request fingerprint is a conflict, pending or done', async () => {
    await store.begin('key_a', 'k1', 'fp1');
    expect(await store.begin('key_a', 'k1', 'fp2')).toEqual({ state: 'conflict' });
    await store.complete('key_a', 'k1', 200, 'application/json', '{}');
    expect(await store.begin('key_a', 'k1', 'fp2')).toEqual({ state: 'conflict' });
    // The conflict did not disturb the stored answer.
    expect(await store.begin('key_a', 'k1', 'fp1')).toMatchObject({ state: 'replay', status: 200 });
  });

  it('scopes keys per API key', async () => {
    expect(await store.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
    expect(await store.begin('key_b', 'k1', 'fp-other')).toEqual({ state: 'new' });
    await store.complete('key_a', 'k1', 200, 'text/plain', 'a');
    await store.complete('key_b', 'k1', 200, 'text/plain', 'b');
    expect(await store.begin('key_a', 'k1', 'fp1')).toMatchObject({ body: 'a' });
    expect(await store.begin('key_b', 'k1', 'fp-other')).toMatchObject({ body: 'b' });
  });

  it('abandon lets the client retry with the same key', async () => {
    await store.begin('key_a', 'k1', 'fp1');
    await store.abandon('key_a', 'k1');
    expect(rows()).toBe(0);
    expect(await store.begin('key_a', 'k1', 'fp2')).toEqual({ state: 'new' }); // may even be a different request now
  });

  it('abandon never deletes a completed answer', async () => {
    await store.begin('key_a', 'k1', 'fp1');
    await store.complete('key_a', 'k1', 200, 'application/json', '{}');
    await store.abandon('key_a', 'k1');
    expect(await store.begin('key_a', 'k1', 'fp1')).toMatchObject({ state: 'replay' });
  });

  it('complete only fills a pending record once', async () => {
    await store.begin('key_a', 'k1', 'fp1');
    await store.complete('key_a', 'k1', 200, 'application/json', 'first');
    await store.complete('key_a', 'k1', 500, 'application/json', 'second');
    expect(await store.begin('key_a', 'k1', 'fp1')).toMatchObject({ status: 200, body: 'first' });
  });

  it('forgets answers after 24 h', async () => {
    await store.begin('key_a', 'k1', 'fp1');
    await store.complete('key_a', 'k1', 200, 'application/json', 'old');
    now += IDEMPOTENCY_TTL_MS - 1;
    expect(await store.begin('key_a', 'k1', 'fp1')).toMatchObject({ state: 'replay', body: 'old' });
    now += 1;
    expect(await store.begin('key_a', 'k1', 'fp2')).toEqual({ state: 'new' }); // expired: a fresh request
    await store.complete('key_a', 'k1', 202, 'application/json', 'new');
    expect(await store.begin('key_a', 'k1', 'fp2')).toMatchObject({ status: 202, body: 'new' });
  });

  it('a pending record left by a crashed request stops blocking after the pending timeout', async () => {
    const short = new IdempotencyStore(db, clock, { pendingTtlMs: 60_000 });
    expect(await short.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
    now += 59_999;
    expect(await short.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'in_progress' });
    now += 1;
    expect(await short.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
  });

  it('purgeExpired deletes records older than 24 h, and begin purges now and then', async () => {
    await store.begin('key_a', 'old1', 'fp');
    await store.begin('key_a', 'old2', 'fp');
    await store.complete('key_a', 'old2', 200, 'text/plain', 'x');
    now += 12 * HOUR;
    await store.begin('key_a', 'young', 'fp');
    now += 12 * HOUR;
    expect(await store.purgeExpired()).toBe(2);
    expect(db.prepare('SELECT idem_key FROM idempotency_keys').pluck().all()).toEqual(['young']);

    now += 24 * HOUR;
    expect(await store.begin('key_b', 'other', 'fp')).toEqual({ state: 'new' }); // triggers the periodic purge
    expect(db.prepare('SELECT idem_key FROM idempotency_keys').pluck().all()).toEqual(['other']);
  });

  it("is shared between processes: a second handle sees the first one's records", async () => {
    const db2 = openDatabase(dir);
    try {
      const other = new IdempotencyStore(db2, clock);
      expect(await store.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
      expect(await other.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'in_progress' });
      await store.complete('key_a', 'k1', 200, 'application/json', '{}');
      expect(await other.begin('key_a', 'k1', 'fp1')).toMatchObject({ state: 'replay' });
    } finally {
      db2.close();
    }
  });
});
