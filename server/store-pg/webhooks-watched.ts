/**
 * Which spreadsheets have webhooks (paused ones included), held in memory so `hasAnyNow` answers at once: read at
 * start, every second, on NOTIFY sheetport_registry (any instance registered or removed one) and, on the instance
 * that changed it, before its change is answered (registry.ts).
 */
import { CHANNELS } from './channels.ts';
import type { PgListener } from './listener.ts';
import type { Pool } from './pool.ts';

/** How often the set is read again even without a NOTIFY (one lost with a dropped connection). */
export const WATCHED_REFRESH_MS = 1000;

export class WatchedSpreadsheets {
  readonly #pool: Pool;
  readonly #listener: PgListener;
  readonly #log: (message: string, err?: unknown) => void;
  #watched = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #unlisten: (() => void) | null = null;
  /** Numbers each read as it starts; the set is the answer of the newest applied, so an older read finishing late
   * never overwrites a newer one. */
  #reads = 0;
  #applied = 0;

  constructor(pool: Pool, listener: PgListener, log: (message: string, err?: unknown) => void) {
    this.#pool = pool;
    this.#listener = listener;
    this.#log = log;
  }

  /** Reads the set, then keeps it current (timer and NOTIFY) until `stop`. */
  async start(): Promise<void> {
    this.#unlisten = this.#listener.on(CHANNELS.registry, () => void this.refresh());
    await this.refresh();
    this.#timer = setInterval(() => void this.refresh(), WATCHED_REFRESH_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#unlisten?.();
    this.#unlisten = null;
  }

  has(spreadsheetId: string): boolean {
    return this.#watched.has(spreadsheetId);
  }

  /** Reads the set again; a failed read keeps the last one (logged). */
  async refresh(): Promise<void> {
    const read = ++this.#reads;
    try {
      const { rows } = await this.#pool.query<{ spreadsheet_id: string }>(
        'SELECT DISTINCT spreadsheet_id FROM webhooks',
      );
      if (read > this.#applied) {
        this.#applied = read;
        this.#watched = new Set(rows.map((r) => r.spreadsheet_id));
      }
    } catch (err) {
      this.#log('Reading which spreadsheets have webhooks failed; keeping the last answer', err);
    }
  }
}
