/**
 * Records every request reads and few change (API keys, connections), held in memory for at most a second and
 * dropped at once when any instance changes them: each change sends NOTIFY sheetport_registry, which every
 * instance's listener hears as it commits (and a reconnect of the listener drops everything too). A request then
 * costs no round trip for them, and a revocation or a removal still holds on every instance within a second at
 * worst, within milliseconds as a rule.
 */
import { CHANNELS } from './channels.ts';
import type { PgListener } from './listener.ts';

/** How long an entry may be served without word of a change (a NOTIFY lost with its connection). */
export const REGISTRY_MAX_AGE_MS = 1000;
/** Entries kept at most: lookups of strings that are no key are cached too, so a flood of them is bounded. */
const MAX_ENTRIES = 10_000;

export class RegistryCache<T> {
  readonly #entries = new Map<string, { value: Promise<T>; at: number }>();
  readonly #maxAgeMs: number;
  /** Bumped by every clear: a load begun before it is answered but not kept. */
  #generation = 0;

  constructor(listener: PgListener | null, maxAgeMs = REGISTRY_MAX_AGE_MS) {
    this.#maxAgeMs = maxAgeMs;
    listener?.on(CHANNELS.registry, () => this.clear());
  }

  /** The entry for `key`, loaded with `load` when absent or older than the maximum age. */
  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = performance.now();
    const held = this.#entries.get(key);
    if (held && now - held.at < this.#maxAgeMs) return held.value;
    const generation = this.#generation;
    const value = load();
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(key, { value, at: now });
    value.then(
      () => {
        if (this.#generation !== generation) this.#entries.delete(key);
      },
      () => this.#entries.delete(key), // a failed load (the database away) is not kept
    );
    return value;
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
