/**
 * The registry's cache (repositories/registry-cache.ts), which both databases' key and connection lookups go
 * through: what it keeps, for how long, and what it never keeps. Its loads here count their calls, standing in
 * for a database statement; the stores' own suites (test/store/) check it over SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { RegistryCache } from '../../server/repositories/registry-cache.ts';

function counted<T>(value: () => T): { load: () => T; calls: () => number } {
  let calls = 0;
  return {
    load: () => {
      calls++;
      return value();
    },
    calls: () => calls,
  };
}

describe('RegistryCache', () => {
  it('answers a held entry without loading again, until it is cleared', () => {
    const cache = new RegistryCache<string | undefined>();
    const row = counted(() => 'row');
    const missing = counted(() => undefined);
    for (let i = 0; i < 3; i++) {
      expect(cache.get('u:abc', row.load)).toBe('row');
      expect(cache.get('u:nope', missing.load)).toBeUndefined();
    }
    expect([row.calls(), missing.calls()]).toEqual([1, 1]);
    cache.clear();
    expect(cache.get('u:abc', row.load)).toBe('row');
    expect(row.calls()).toBe(2);
  });

  it('loads again once an entry is older than its maximum age', async () => {
    const cache = new RegistryCache<number>(20);
    const row = counted(() => 1);
    cache.get('k', row.load);
    cache.get('k', row.load);
    await new Promise((resolve) => setTimeout(resolve, 30));
    cache.get('k', row.load);
    expect(row.calls()).toBe(2);
  });

  it('never keeps a lookup of a long string, so made-up userKeys in URLs cannot fill memory', () => {
    const cache = new RegistryCache<undefined>();
    const long = `u:${'x'.repeat(10_000)}`;
    const missing = counted(() => undefined);
    cache.get(long, missing.load);
    cache.get(long, missing.load);
    expect(missing.calls()).toBe(2);
  });

  it('keeps no failed load, and no load begun before a clear', async () => {
    const cache = new RegistryCache<Promise<string>>();
    const failing = counted(() => Promise.reject(new Error('database away')));
    await expect(cache.get('k', failing.load)).rejects.toThrow('database away');
    await expect(cache.get('k', failing.load)).rejects.toThrow('database away');
    expect(failing.calls()).toBe(2);

    // A load begun before a clear is answered, not kept; and its settling leaves the newer lookup's entry alone.
    let fail: (err: Error) => void = () => {};
    const old = counted(() => new Promise<string>((_resolve, reject) => (fail = reject)));
    const before = cache.get('s', old.load);
    cache.clear();
    const fresh = counted(() => Promise.resolve('new'));
    expect(await cache.get('s', fresh.load)).toBe('new');
    fail(new Error('database away'));
    await expect(before).rejects.toThrow('database away');
    expect(await cache.get('s', fresh.load)).toBe('new');
    expect([old.calls(), fresh.calls()]).toEqual([1, 1]);
  });
});
