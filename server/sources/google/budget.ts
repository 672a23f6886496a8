/**
 * A per-account budget of Sheets API calls that keeps SheetPort under Google's per-minute quota (60 reads and 60
 * writes per minute per user by default) however many clients call: a rolling 60-second window per kind.
 * Past the read budget, readers are served from the in-memory copy; past the write budget, writes wait in a short
 * queue for a slot and otherwise fail with 503 and Retry-After. Drive's metadata checks are not Sheets calls and
 * are not counted.
 *
 * One budget per account per service context: every source opened with the same SourceOptions shares it.
 */
import { OwnerCache } from '../../lib/owner-cache.ts';
import type { SourceOptions } from '../kind.ts';
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

const WINDOW_MS = 60_000;

export class QuotaBudget {
  readonly #limits: BudgetLimits;
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #spent: Record<CallKind, number[]> = { read: [], write: [] };
  #waiting = 0;

  constructor(limits: BudgetLimits, now: () => number, sleep: (ms: number) => Promise<void>) {
    this.#limits = limits;
    this.#now = now;
    this.#sleep = sleep;
  }

  #limit(kind: CallKind): number {
    return kind === 'read' ? this.#limits.readsPerMinute : this.#limits.writesPerMinute;
  }

  #recent(kind: CallKind): number[] {
    const since = this.#now() - WINDOW_MS;
    const spent = this.#spent[kind];
    while (spent.length > 0 && (spent[0] ?? 0) <= since) spent.shift();
    return spent;
  }

  /** Spend one call now if the window has room. */
  tryTake(kind: CallKind): boolean {
    const spent = this.#recent(kind);
    if (spent.length >= this.#limit(kind)) return false;
    spent.push(this.#now());
    return true;
  }

  /** Milliseconds until the window has room for one more call of `kind` (0 when it has now). */
  msUntilFree(kind: CallKind): number {
    const spent = this.#recent(kind);
    if (spent.length < this.#limit(kind)) return 0;
    return Math.max(1, (spent[spent.length - this.#limit(kind)] ?? 0) + WINDOW_MS - this.#now());
  }

  /** Spend one call, waiting up to the queue time for room; otherwise 503 upstream_unavailable with Retry-After. */
  async take(kind: CallKind): Promise<void> {
    if (this.tryTake(kind)) return;
    const refuse = () => unavailable(Math.max(1, Math.ceil(this.msUntilFree(kind) / 1000)));
    if (this.#waiting >= this.#limits.queueLength) throw refuse();
    const deadline = this.#now() + this.#limits.queueMs;
    this.#waiting++;
    try {
      for (;;) {
        const wait = this.msUntilFree(kind);
        if (this.#now() + wait > deadline) throw refuse();
        await this.#sleep(wait);
        if (this.tryTake(kind)) return;
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
