/**
 * Records every request reads and few change (API keys, connections), held in memory for at most a second and
 * dropped at once when they change, so a request's key and connection cost no query. Each database says when
 * they changed (store/registry.ts, store-pg/registry.ts): every change of the registry, this process's or another
 * one's, clears the caches; the second is the bound for a word of change that was lost.
 *
 * A value may be a promise (PostgreSQL's statements answer later): a load that fails is not kept, and a load
 * begun before a clear is answered but not kept, as it may have read what the change replaced.
 */

/** How long an entry may be served without word of a change (a NOTIFY lost with its connection). */
export const REGISTRY_MAX_AGE_MS = 1000;
/** Entries kept at most: lookups of strings that are no key are cached too, so a flood of them is bounded. */
const MAX_ENTRIES = 10_000;

export class RegistryCache<T> {
  readonly #entries = new Map<string, { value: T; at: number }>();
  readonly #maxAgeMs: number;
  /** Bumped by every clear: a load begun before it is answered but not kept. */
  #generation = 0;

  constructor(maxAgeMs = REGISTRY_MAX_AGE_MS) {
    this.#maxAgeMs = maxAgeMs;
  }

  /** The entry for `key`, loaded with `load` when absent or older than the maximum age. */
  get(key: string, load: () => T): T {
    const now = performance.now();
    const held = this.#entries.get(key);
    if (held && now - held.at < this.#maxAgeMs) return held.value;
    const generation = this.#generation;
    const value = load();
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(key, { value, at: now });
    if (value instanceof Promise) {
      value.then(
        () => {
          if (this.#generation !== generation) this.#entries.delete(key);
        },
        () => this.#entries.delete(key), // a failed load (the database away) is not kept
      );
    }
    return value;
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
