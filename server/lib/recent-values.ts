/**
 * Values made from a string, kept while it repeats: what a polled request would otherwise work out again (a list
 * query parsed, a `Link` header made, a rate-limit policy, a webhook's condition parsed). Bounded two ways, since
 * the strings come from requests: at most `max` kept, all let go when full (cheaper than tracking use, and a
 * polled string is back at the next request), and a string longer than `maxKeyLength` made each time, never kept.
 */
export class RecentValues<V> {
  readonly #kept = new Map<string, V>();
  readonly #max: number;
  readonly #maxKeyLength: number;

  constructor(max: number, maxKeyLength = 1024) {
    this.#max = max;
    this.#maxKeyLength = maxKeyLength;
  }

  /** The value kept for `key`, or `make()`'s, kept unless `key` is too long. */
  get(key: string, make: () => V): V {
    if (key.length > this.#maxKeyLength) return make();
    let value = this.#kept.get(key);
    if (value === undefined) {
      value = make();
      if (this.#kept.size >= this.#max) this.#kept.clear();
      this.#kept.set(key, value);
    }
    return value;
  }
}
