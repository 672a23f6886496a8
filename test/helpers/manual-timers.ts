/** A test clock for code that takes `Timers` (server/lib/timers.ts): nothing fires until `advance` says so. */
import type { Cancel, Timers } from '../../server/lib/timers.ts';

interface Pending {
  at: number;
  every: number | null;
  fn: () => void;
  cancelled: boolean;
}

export class ManualTimers implements Timers {
  now = 0;
  readonly #pending: Pending[] = [];

  after(ms: number, fn: () => void): Cancel {
    return this.#add({ at: this.now + ms, every: null, fn, cancelled: false });
  }

  every(ms: number, fn: () => void): Cancel {
    return this.#add({ at: this.now + ms, every: ms, fn, cancelled: false });
  }

  /** Move the clock on, firing every timer that falls due, in time order. */
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const next = this.#pending.filter((p) => !p.cancelled && p.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.now = next.at;
      if (next.every === null) next.cancelled = true;
      else next.at += next.every;
      next.fn();
    }
    this.now = end;
  }

  get active(): number {
    return this.#pending.filter((p) => !p.cancelled).length;
  }

  #add(p: Pending): Cancel {
    this.#pending.push(p);
    return {
      cancel: () => {
        p.cancelled = true;
      },
    };
  }
}
