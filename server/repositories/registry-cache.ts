/**
 * Records every request reads and few change (API keys, connections), held in memory for at most a second and
 * dropped at once when they change, so a request's key and connection cost no query. Each database says when
 * they changed (store/registry.ts, store-pg/registry.ts): every change of the registry, this process's or another
 * one's, clears the caches; the second is the bound for a word of change that was lost.
 *
 * A value may be a promise (PostgreSQL's statements answer later): a load that fails is not kept. A load begun
 * before a clear is answered but not kept, as it may have read what the change replaced: the clear drops it, and
 * its settling never touches the entry a later lookup made.
 */

/** How long an entry may be served without word of a change (a NOTIFY lost with its connection). */
export const REGISTRY_MAX_AGE_MS = 1000;
/** Entries kept at most: lookups of strings that are no key are cached too, so a flood of them is bounded. */
const MAX_ENTRIES = 10_000;
/** Longer lookups are answered but not kept (no id, userKey or key hash is near this long), so a flood of long
 * made-up userKeys in URLs (an anonymous read looks its connection up) cannot fill memory. */
const MAX_KEPT_KEY_LENGTH = 256;

export class RegistryCache<T> {
  readonly #entries = new Map<string, { value: T; at: number }>();
  readonly #maxAgeMs: number;

  constructor(maxAgeMs = REGISTRY_MAX_AGE_MS) {
    this.#maxAgeMs = maxAgeMs;
  }

  /** The entry for `key`, loaded with `load` when absent or older than the maximum age. */
  get(key: string, load: () => T): T {
    if (key.length > MAX_KEPT_KEY_LENGTH) return load();
    const now = performance.now();
    const held = this.#entries.get(key);
    if (held && now - held.at < this.#maxAgeMs) return held.value;
    const value = load();
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    const entry = { value, at: now };
    this.#entries.set(key, entry);
    if (value instanceof Promise) {
      // A failed load (the database away) is not kept; one a clear or a newer lookup replaced is not ours to drop.
      value.catch(() => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      });
    }
    return value;
  }

  clear(): void {
    this.#entries.clear();
  }
}
