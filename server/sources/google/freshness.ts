/**
 * How a Google source knows its content changed: Drive's `version` and `modifiedTime` of the file, one cheap
 * metadata call (no Sheets quota). `current()` answers from the last check; only when that check is older than
 * `maxAgeMs` (5 s by default) does it ask again, waiting at most `waitMs` (2 s) and otherwise, or while Google
 * is unavailable, answering the last known version, so readers are served from the in-memory copy. While anyone
 * watches, a check runs every `pollMs` (30 s by default) and tells the watchers only when the version moved;
 * a watcher that says what it waits for (`WatchInterest`) is checked for only while a webhook subscribes or
 * someone read in the last `idleMs` (10 minutes): a sheet nobody uses costs no requests.
 *
 * Drive answers the same 404 for a missing file and for one the account may not open (not shared, or no longer):
 * `explainNotFound` asks Sheets, which tells the two apart, and its verdict is kept until Drive sees the file again
 * or for `pollMs`, so many readers of a spreadsheet whose sharing was revoked cost one Sheets call, not one each.
 */

import { type AppError, isAppError } from '../../errors.ts';
import { type Cancel, realTimers, type Timers } from '../../lib/timers.ts';
import type { Unwatch, WatchInterest } from '../source.ts';
import type { GoogleClients } from './client.ts';
import { DEFAULT_RETRY, type RetryPolicy, withRetry } from './retry.ts';

export const DEFAULT_POLL_MS = 30_000;
export const DEFAULT_MAX_AGE_MS = 5_000;
export const DEFAULT_WAIT_MS = 2_000;
export const DEFAULT_IDLE_MS = 10 * 60_000;

export interface FreshnessOptions {
  timers?: Timers;
  pollMs?: number;
  maxAgeMs?: number;
  waitMs?: number;
  /** How long after the last read a watch with an interest goes on checking without subscribers. */
  idleMs?: number;
  now?: () => number;
  retry?: RetryPolicy;
  log?: (message: string, err?: unknown) => void;
  /**
   * What to answer instead of Drive's 404 (`spreadsheet_not_found`): the error Sheets gives for the spreadsheet
   * (403 is google_access_denied), or Drive's own when Sheets agrees. An `upstream_unavailable` is not kept.
   */
  explainNotFound?: (driveSays: AppError) => Promise<unknown>;
}

export class Freshness {
  readonly #clients: GoogleClients;
  readonly #spreadsheetId: string;
  readonly #timers: Timers;
  readonly #pollMs: number;
  readonly #maxAgeMs: number;
  readonly #waitMs: number;
  readonly #now: () => number;
  #checkedAt = 0;
  #failing = false;
  readonly #retry: RetryPolicy;
  readonly #log: (message: string, err?: unknown) => void;
  /** Each listener with what it waits for (undefined: everything, always checked for). */
  readonly #listeners = new Map<() => void, WatchInterest | undefined>();
  readonly #idleMs: number;
  /** When a reader last asked for the version (epoch ms); polls do not count. */
  #readAt = Number.NEGATIVE_INFINITY;
  #timer: Cancel | null = null;
  #last: string | null = null;
  #inFlight: Promise<string> | null = null;
  readonly #explainNotFound: FreshnessOptions['explainNotFound'];
  /** The explanation of Drive's last 404, and when it was given (epoch ms). */
  #explained: { error: unknown; at: number } | null = null;

  constructor(clients: GoogleClients, spreadsheetId: string, options: FreshnessOptions = {}) {
    this.#clients = clients;
    this.#spreadsheetId = spreadsheetId;
    this.#timers = options.timers ?? realTimers;
    this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.#maxAgeMs = options.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
    this.#waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#now = options.now ?? Date.now;
    this.#retry = options.retry ?? DEFAULT_RETRY;
    this.#log = options.log ?? (() => {});
    this.#explainNotFound = options.explainNotFound;
  }

  /** The version as of the last check; a new check when that one is too old (see the top of this file). */
  async current(): Promise<string> {
    this.#readAt = this.#now();
    const last = this.#last;
    if (last === null) return this.check();
    if (this.#now() - this.#checkedAt < this.#maxAgeMs) return last;
    let deadline: Cancel | undefined;
    try {
      const late = new Promise<string>((resolve) => {
        deadline = this.#timers.after(this.#waitMs, () => resolve(last));
      });
      return await Promise.race([this.check(), late]);
    } catch (err) {
      if (isAppError(err) && err.code === 'upstream_unavailable') return last;
      throw err;
    } finally {
      deadline?.cancel();
    }
  }

  /** Ask Drive now; concurrent callers share one request. */
  check(): Promise<string> {
    if (!this.#inFlight) {
      const asked = this.#ask().finally(() => {
        this.#inFlight = null;
      });
      asked.catch(() => {}); // a check nobody waits for any more must not become an unhandled rejection
      this.#inFlight = asked;
    }
    return this.#inFlight;
  }

  watch(listener: () => void, interest?: WatchInterest): Unwatch {
    this.#listeners.set(listener, interest);
    this.#timer ??= this.#timers.every(this.#pollMs, () => void this.#poll());
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    this.#timer?.cancel();
    this.#timer = null;
  }

  /** The version Drive gave last, when (epoch ms) and whether the latest attempt to ask failed. */
  lastCheck(): { version: string | null; at: number; failing: boolean } {
    return { version: this.#last, at: this.#checkedAt, failing: this.#failing };
  }

  async #ask(): Promise<string> {
    // When the attempt that answered was sent, not when the first one was: after retries the content is known
    // current as of that last request.
    let askedAt = this.#now();
    let data: { version?: string | null; modifiedTime?: string | null };
    try {
      ({ data } = await withRetry(() => {
        askedAt = this.#now();
        return this.#clients.drive.files.get({
          fileId: this.#spreadsheetId,
          fields: 'modifiedTime,version',
          supportsAllDrives: true,
        });
      }, this.#retry));
    } catch (err) {
      this.#failing = true;
      throw await this.#explain(err);
    }
    this.#failing = false;
    this.#explained = null;
    this.#last = `${data.version ?? ''}@${data.modifiedTime ?? ''}`;
    this.#checkedAt = askedAt;
    return this.#last;
  }

  /** Drive's 404 as Sheets explains it (see the top of this file); any other failure as it is. */
  async #explain(err: unknown): Promise<unknown> {
    const explain = this.#explainNotFound;
    if (!explain || !isAppError(err) || err.code !== 'spreadsheet_not_found') return err;
    const held = this.#explained;
    if (held && this.#now() - held.at < this.#pollMs) return held.error;
    const error = await explain(err);
    if (!isAppError(error) || error.code !== 'upstream_unavailable')
      this.#explained = { error, at: this.#now() };
    return error;
  }

  /** Whether a poll is worth its request: a watcher waits regardless, a webhook subscribes, or a read was recent. */
  #wanted(): boolean {
    if (this.#now() - this.#readAt < this.#idleMs) return true;
    for (const interest of this.#listeners.values()) if (!interest || interest.subscribed()) return true;
    return false;
  }

  async #poll(): Promise<void> {
    if (!this.#wanted()) return;
    const before = this.#last;
    try {
      const now = await this.check();
      if (before !== null && now === before) return;
    } catch (err) {
      // Google unreachable for now: the in-memory copy keeps serving what it has; the next check tries again.
      this.#log('Checking a Google spreadsheet for changes failed', err);
      return;
    }
    for (const listener of [...this.#listeners.keys()]) listener();
  }
}
