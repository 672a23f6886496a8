import type { Source, Unwatch, WatchInterest } from '../sources/source.ts';
import type { Lease } from './ownership.ts';

/**
 * Keeping one spreadsheet current without anyone reading it: the source says when its content may have changed
 * outside SheetPort (how it notices is its own business) and the spreadsheet looks, so the change recorder sees
 * saves made in Excel or edits made in the browser. Only the owner watches: the lease comes first.
 */
export class Following {
  readonly #source: Source;
  readonly #owns: () => Promise<Lease | null>;
  readonly #look: () => void;
  /** Set from `start` to `stop`, whether or not the watch has begun yet (the lease is asked for first). */
  #watch: { unwatch: Unwatch | null } | null = null;

  constructor(source: Source, owns: () => Promise<Lease | null>, look: () => void) {
    this.#source = source;
    this.#owns = owns;
    this.#look = look;
  }

  get on(): boolean {
    return this.#watch !== null;
  }

  /** Watch once this process owns the spreadsheet, and look once then. */
  start(interest?: WatchInterest): void {
    if (this.#watch) return;
    const watch: { unwatch: Unwatch | null } = { unwatch: null };
    this.#watch = watch;
    void this.#owns().then(
      (lease) => {
        if (!lease || this.#watch !== watch) {
          if (this.#watch === watch) this.#watch = null; // another owner watches; the follower asks again
          return;
        }
        watch.unwatch = this.#source.watch(this.#look, interest);
        this.#look();
      },
      () => {
        if (this.#watch === watch) this.#watch = null;
      },
    );
  }

  stop(): void {
    this.#watch?.unwatch?.();
    this.#watch = null;
  }
}
