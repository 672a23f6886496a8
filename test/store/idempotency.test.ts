import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Idempotency } from '../../server/repositories/idempotency.ts';
import { IDEMPOTENCY_TTL_MS } from '../../server/repositories/rules/idempotency.ts';
import { openTestStore, STORE_KINDS, type TestStore } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('Idempotency (%s)', (kind) => {
  let opened: TestStore;
  let now: number;
  let store: Idempotency;
  const clock = () => new Date(now);

  beforeEach(async () => {
    now = Date.parse('2025-03-01T00:00:00.000Z');
    opened = await openTestStore(kind, { clock });
    store = opened.idempotency;
  });
  afterEach(async () => {
    await opened.close();
  });

  const rows = async () => Number((await opened.sql('SELECT COUNT(*) AS n FROM idempotency_keys'))[0]?.n);
  const keysLeft = async () =>
    (await opened.sql('SELECT idem_key FROM idempotency_keys ORDER BY idem_key')).map((r) => r.idem_key);
  const HOUR = 60 * 60 * 1000;

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
    expect(await rows()).toBe(1);
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
    expect(await rows()).toBe(0);
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
    const short = opened.idempotencyWith({ pendingTtlMs: 60_000 });
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
    expect(await keysLeft()).toEqual(['young']);

    now += 24 * HOUR;
    expect(await store.begin('key_b', 'other', 'fp')).toEqual({ state: 'new' }); // triggers the periodic purge
    expect(await keysLeft()).toEqual(['other']);
  });

  it("is shared between processes: a second handle sees the first one's records", async () => {
    const other = (await opened.again()).idempotency;
    expect(await store.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'new' });
    expect(await other.begin('key_a', 'k1', 'fp1')).toEqual({ state: 'in_progress' });
    await store.complete('key_a', 'k1', 200, 'application/json', '{}');
    expect(await other.begin('key_a', 'k1', 'fp1')).toMatchObject({ state: 'replay' });
  });

  it('lets exactly one of many concurrent begins with one key through, across handles', async () => {
    const other = (await opened.again()).idempotency;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).begin('key_a', 'race', 'fp')),
    );
    expect(results.filter((r) => r.state === 'new')).toHaveLength(1);
    expect(results.filter((r) => r.state === 'in_progress')).toHaveLength(9);
  });

  it('keeps stored answers sealed: the body is not in the row', async () => {
    await store.begin('key_a', 'k1', 'fp1');
    await store.complete('key_a', 'k1', 200, 'application/json', '{"secret":"whsec_plain"}');
    const stored = JSON.stringify(await opened.sql('SELECT body FROM idempotency_keys'));
    expect(stored).not.toContain('whsec_plain');
    expect(stored).toContain('sp1:');
  });
});
