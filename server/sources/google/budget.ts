/**
 * A per-account budget of Sheets API calls that keeps SheetPort under Google's per-minute quota (60 reads and 60
 * writes per minute per user by default) however many clients call: a rolling 60-second window per kind.
 * Past the read budget, readers are served from the in-memory copy; past the write budget, writes wait in a short
 * queue for a slot and otherwise fail with 503 and Retry-After. Drive's metadata checks are not Sheets calls and
 * are not counted.
 *
 * One budget per account per service context: every source opened with the same SourceOptions shares it. In team
 * mode the calls are counted in the team's database (SourceOptions' `sharedCalls`), so the instances together keep
 * within the account's quota, not each one.
 */
import { OwnerCache } from '../../lib/owner-cache.ts';
import type { SharedCalls, SourceOptions } from '../kind.ts';
import { unavailable } from './errors.ts';

export type CallKind = 'read' | 'write';

export interface BudgetLimits {
  readsPerMinute: number;
  writesPerMinute: number;
  /** How long a write waits for a slot before it is refused (ms). */
  queueMs: number;
  /** How many writes may wait at once; the next one is refused at once. */
  queueLength: number;
}

export const DEFAULT_BUDGET: BudgetLimits = {
  readsPerMinute: 60,
  writesPerMinute: 60,
  queueMs: 5_000,
  queueLength: 10,
};

export const WINDOW_MS = 60_000;

/** A call spent, or not: then how long until the window has room for one (ms). */
export interface Taken {
  taken: boolean;
  msUntilFree: number;
}

export class QuotaBudget {
  readonly #limits: BudgetLimits;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #spent: Record<CallKind, number[]> = { read: [], write: [] };
  readonly #shared: { calls: SharedCalls; account: string } | null;
  #waiting = 0;

  constructor(
    limits: BudgetLimits,
    now: () => number,
    sleep: (ms: number) => Promise<void>,
    shared: { calls: SharedCalls; account: string } | null = null,
  ) {
    this.#limits = limits;
    this.#now = now;
    this.#sleep = sleep;
    this.#shared = shared;
  }

  #limit(kind: CallKind): number {
    return kind === 'read' ? this.#limits.readsPerMinute : this.#limits.writesPerMinute;
  }

  /** Spend one call now if the window has room (the team's window when shared). */
  async tryTake(kind: CallKind): Promise<boolean> {
    return (await this.#take(kind)).taken;
  }

  async #take(kind: CallKind): Promise<Taken> {
    if (this.#shared) {
      return this.#shared.calls(`google:${this.#shared.account}:${kind}`, this.#limit(kind), this.#now());
    }
    const now = this.#now();
    const spent = this.#spent[kind];
    while (spent.length > 0 && (spent[0] ?? 0) <= now - WINDOW_MS) spent.shift();
    const limit = this.#limit(kind);
    if (spent.length < limit) {
      spent.push(now);
      return { taken: true, msUntilFree: 0 };
    }
    return { taken: false, msUntilFree: Math.max(1, (spent[spent.length - limit] ?? 0) + WINDOW_MS - now) };
  }

  /** Spend one call, waiting up to the queue time for room; otherwise 503 upstream_unavailable with Retry-After. */
  async take(kind: CallKind): Promise<void> {
    let attempt = await this.#take(kind);
    if (attempt.taken) return;
    const refuse = (wait: number) => unavailable(Math.max(1, Math.ceil(wait / 1000)));
    if (this.#waiting >= this.#limits.queueLength) throw refuse(attempt.msUntilFree);
    const deadline = this.#now() + this.#limits.queueMs;
    this.#waiting++;
    try {
      for (;;) {
        const wait = attempt.msUntilFree;
        if (this.#now() + wait > deadline) throw refuse(wait);
        await this.#sleep(wait);
        attempt = await this.#take(kind);
        if (attempt.taken) return;
      }
    } finally {
      this.#waiting--;
    }
  }
}

const budgets = new OwnerCache<SourceOptions, string, QuotaBudget>();

/** The budget of `account` among the sources opened with `options` (one service context). */
export function budgetFor(options: SourceOptions, account: string, make: () => QuotaBudget): QuotaBudget {
  return budgets.get(options, account, make);
}
