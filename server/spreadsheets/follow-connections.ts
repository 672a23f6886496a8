/**
 * Keeps every registered connection's spreadsheet followed, so outside changes are noticed whether or not anyone
 * reads. The connection list is re-read now and then because another process (the CLI) may add or remove
 * connections in the shared database; a removed connection is let go.
 */
import { RetryStreak } from '../lib/retry-streak.ts';
import { type Cancel, realTimers, type Timers } from '../lib/timers.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type { Spreadsheets } from './spreadsheets.ts';

export interface FollowOptions {
  /** How often the connection list is re-read (ms). */
  syncMs?: number;
  timers?: Timers;
  /** Whether a spreadsheet has subscribers (webhooks): its source may check less often without them. */
  subscribed?: (spreadsheetId: string) => boolean;
  /** Where a failing look (the database unreadable) is reported, once until it works again. */
  log?: (message: string, err?: unknown) => void;
}

export class ConnectionFollower {
  readonly #spreadsheets: Spreadsheets;
  readonly #list: () => Promise<ConnectionRecord[]>;
  readonly #syncMs: number;
  readonly #timers: Timers;
  readonly #subscribed: ((spreadsheetId: string) => boolean) | undefined;
  #timer: Cancel | null = null;
  readonly #syncing: RetryStreak;

  constructor(
    spreadsheets: Spreadsheets,
    list: () => Promise<ConnectionRecord[]>,
    options: FollowOptions = {},
  ) {
    this.#spreadsheets = spreadsheets;
    this.#list = list;
    this.#syncMs = options.syncMs ?? 2000;
    this.#timers = options.timers ?? realTimers;
    this.#subscribed = options.subscribed;
    this.#syncing = new RetryStreak({ name: 'Following connections', log: options.log ?? (() => {}) });
  }

  start(): void {
    // From a timer, a throw would end the process: a failing look is retried with backoff instead.
    const look = () => void this.#syncing.runAsync(() => this.sync());
    look();
    this.#timer = this.#timers.every(this.#syncMs, look);
  }

  stop(): void {
    this.#timer?.cancel();
    this.#timer = null;
  }

  /** Follow new connections and let go of removed ones; look again at changes whose recording failed. */
  async sync(): Promise<void> {
    const current = new Map((await this.#list()).map((c) => [c.spreadsheetId, c]));
    for (const id of this.#spreadsheets.followed()) {
      if (!current.has(id)) void this.#spreadsheets.forget(id);
    }
    const followed = new Set(this.#spreadsheets.followed());
    for (const connection of current.values()) {
      if (followed.has(connection.spreadsheetId)) continue;
      const subscribed = this.#subscribed;
      const id = connection.spreadsheetId;
      this.#spreadsheets.of(connection).follow(subscribed ? { subscribed: () => subscribed(id) } : undefined);
    }
    for (const spreadsheet of this.#spreadsheets.unrecorded()) {
      if (current.has(spreadsheet.spreadsheetId)) spreadsheet.observe().catch(() => {}); // its failure is logged there
    }
  }
}
