/**
 * Keeps the replica following every registered connection, so outside changes are noticed whether or not anyone
 * reads. The connection list is re-read now and then because another process (the CLI) may add or remove
 * connections in the shared database; a removed connection is let go.
 */
import { type Cancel, realTimers, type Timers } from '../lib/timers.ts';
import type { ConnectionRecord } from '../store/connections.ts';
import type { Replica } from './replica.ts';

export interface FollowOptions {
  /** How often the connection list is re-read (ms). */
  syncMs?: number;
  timers?: Timers;
  /** Whether a spreadsheet has subscribers (webhooks): its source may check less often without them. */
  subscribed?: (spreadsheetId: string) => boolean;
}

export class ConnectionFollower {
  readonly #replica: Replica;
  readonly #list: () => ConnectionRecord[];
  readonly #syncMs: number;
  readonly #timers: Timers;
  readonly #subscribed: ((spreadsheetId: string) => boolean) | undefined;
  #timer: Cancel | null = null;

  constructor(replica: Replica, list: () => ConnectionRecord[], options: FollowOptions = {}) {
    this.#replica = replica;
    this.#list = list;
    this.#syncMs = options.syncMs ?? 2000;
    this.#timers = options.timers ?? realTimers;
    this.#subscribed = options.subscribed;
  }

  start(): void {
    this.sync();
    this.#timer = this.#timers.every(this.#syncMs, () => this.sync());
  }

  stop(): void {
    this.#timer?.cancel();
    this.#timer = null;
  }

  /** Follow new connections and let go of removed ones. */
  sync(): void {
    const current = new Map(this.#list().map((c) => [c.spreadsheetId, c]));
    for (const id of this.#replica.followed()) {
      if (!current.has(id)) void this.#replica.forget(id);
    }
    const followed = new Set(this.#replica.followed());
    for (const connection of current.values()) {
      if (followed.has(connection.spreadsheetId)) continue;
      const subscribed = this.#subscribed;
      const id = connection.spreadsheetId;
      this.#replica.follow(connection, subscribed ? { subscribed: () => subscribed(id) } : undefined);
    }
  }
}
