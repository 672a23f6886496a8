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
  it('new -> in_progress -> complete -> replay', () => {
    expect(store.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
    expect(store.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'in_progress' });
    store.complete('key_a', 'k1', 201, 'application/json; charset=utf-8', '{"ok":true}');
    const replay = {
      state: 'replay',
      status: 201,
      contentType: 'application/json; charset=utf-8',
      body: '{"ok":true}',
    };
    expect(store.begin('key_a', 'k1', 'fp1')).toEqual(replay);
    now += 23 * HOUR;
    expect(store.begin('key_a', 'k1', 'fp1')).toEqual(replay);
    expect(rows()).toBe(1);
  });

  it('the same key with another request fingerprint is a conflict, pending or done', () => {
    store.begin('key_a', 'k1', 'fp1');
    expect(store.begin('key_a', 'k1', 'fp2')).toEqual({ state: 'conflict' });
    store.complete('key_a', 'k1', 200, 'application/json', '{}');
    expect(store.begin('key_a', 'k1', 'fp2')).toEqual({ state: 'conflict' });
    // The conflict did not disturb the stored answer.
    expect(store.begin('key_a', 'k1', 'fp1')).toMatchObject({ state: 'replay', status: 200 });
  });

  it('scopes keys per API key', () => {
    expect(store.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
    expect(store.begin('key_b', 'k1', 'fp-other')).toEqual({ state: 'new' });
    store.complete('key_a', 'k1', 200, 'text/plain', 'a');
    store.complete('key_b', 'k1', 200, 'text/plain', 'b');
    expect(store.begin('key_a', 'k1', 'fp1')).toMatchObject({ body: 'a' });
    expect(store.begin('key_b', 'k1', 'fp-other')).toMatchObject({ body: 'b' });
  });

  it('abandon lets the client retry with the same key', () => {
    store.begin('key_a', 'k1', 'fp1');
    store.abandon('key_a', 'k1');
    expect(rows()).toBe(0);
    expect(store.begin('key_a', 'k1', 'fp2')).toEqual({ state: 'new' }); // may even be a different request now
  });

  it('abandon never deletes a completed answer', () => {
    store.begin('key_a', 'k1', 'fp1');
    store.complete('key_a', 'k1', 200, 'application/json', '{}');
    store.abandon('key_a', 'k1');
    expect(store.begin('key_a', 'k1', 'fp1')).toMatchObject({ state: 'replay' });
  });

  it('complete only fills a pending record once', () => {
    store.begin('key_a', 'k1', 'fp1');
    store.complete('key_a', 'k1', 200, 'application/json', 'first');
    store.complete('key_a', 'k1', 500, 'application/json', 'second');
    expect(store.begin('key_a', 'k1', 'fp1')).toMatchObject({ status: 200, body: 'first' });
  });

  it('forgets answers after 24 h', () => {
    store.begin('key_a', 'k1', 'fp1');
    store.complete('key_a', 'k1', 200, 'application/json', 'old');
    now += IDEMPOTENCY_TTL_MS - 1;
    expect(store.begin('key_a', 'k1', 'fp1')).toMatchObject({ state: 'replay', body: 'old' });
    now += 1;
    expect(store.begin('key_a', 'k1', 'fp2')).toEqual({ state: 'new' }); // expired: a fresh request
    store.complete('key_a', 'k1', 202, 'application/json', 'new');
    expect(store.begin('key_a', 'k1', 'fp2')).toMatchObject({ status: 202, body: 'new' });
  });

  it('a pending record left by a crashed request stops blocking after the pending timeout', () => {
    const short = new IdempotencyStore(db, clock, { pendingTtlMs: 60_000 });
    expect(short.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
    now += 59_999;
    expect(short.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'in_progress' });
    now += 1;
    expect(short.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
  });

  it('purgeExpired deletes records older than 24 h, and begin purges now and then', () => {
    store.begin('key_a', 'old1', 'fp');
    store.begin('key_a', 'old2', 'fp');
    store.complete('key_a', 'old2', 200, 'text/plain', 'x');
    now += 12 * HOUR;
    store.begin('key_a', 'young', 'fp');
    now += 12 * HOUR;
    expect(store.purgeExpired()).toBe(2);
    expect(db.prepare('SELECT idem_key FROM idempotency_keys').pluck().all()).toEqual(['young']);

    now += 24 * HOUR;
    expect(store.begin('key_b', 'other', 'fp')).toEqual({ state: 'new' }); // triggers the periodic purge
    expect(db.prepare('SELECT idem_key FROM idempotency_keys').pluck().all()).toEqual(['other']);
  });

  it("is shared between processes: a second handle sees the first one's records", () => {
    const db2 = openDatabase(dir);
    try {
      const other = new IdempotencyStore(db2, clock);
      expect(store.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
      expect(other.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'in_progress' });
      store.complete('key_a', 'k1', 200, 'application/json', '{}');
      expect(other.begin('key_a', 'k1', 'fp1')).toMatchObject({ state: 'replay' });
    } finally {
      db2.close();
    }
  });
});
