/**
 * Values worked out once per owner and key and kept while the owner lives: the owner (a snapshot's row arrays,
 * the options of one service context) is held weakly, so its entries go with it. With `maxPerOwner`, an owner
 * keeps its most recently used entries only (a Map's order is the use order: a hit moves to the end).
 */
export class OwnerCache<O extends object, K, V> {
  readonly #byOwner = new WeakMap<O, Map<K, V>>();
  readonly #maxPerOwner: number;

  constructor(maxPerOwner = Number.POSITIVE_INFINITY) {
    this.#maxPerOwner = maxPerOwner;
  }

  /** The kept value of `key` for `owner`, if any, without making one. */
  peek(owner: O, key: K): V | undefined {
    return this.#byOwner.get(owner)?.get(key);
  }

  /** The value of `key` for `owner`: the kept one, or `make()`'s, kept. */
  get(owner: O, key: K, make: () => V): V {
    let entries = this.#byOwner.get(owner);
    if (!entries) {
      entries = new Map();
      this.#byOwner.set(owner, entries);
    }
    const hit = entries.get(key);
    if (hit !== undefined || entries.has(key)) {
      if (entries.size > 1 && this.#maxPerOwner !== Number.POSITIVE_INFINITY) {
        entries.delete(key);
        entries.set(key, hit as V);
      }
      return hit as V;
    }
    const value = make();
    entries.set(key, value);
    if (entries.size > this.#maxPerOwner) entries.delete(entries.keys().next().value!);
    return value;
  }

  /** Forgets `key` for `owner` while it still holds `value` (a failed promise, so the next asker tries again). */
  forget(owner: O, key: K, value: V): void {
    const entries = this.#byOwner.get(owner);
    if (entries?.get(key) === value) entries.delete(key);
  }
}
