/**
 * Who wants to hear that a tab changed: the MCP server's resource subscriptions. One watch per service looks at
 * the end of the change log (an index lookup; no file is read) every `pollMs` while anyone listens, and tells
 * each listener of its tab. The change log moves on every recorded change, made through the API, by another
 * instance in team mode, or saved outside by Excel or Google Sheets and recorded by the spreadsheet's follower.
 */
import { RetryStreak } from '../lib/retry-streak.ts';
import type { ChangedTab, ChangeLog } from '../repositories/change-log.ts';

export type TabListener = (tab: ChangedTab) => void;

export interface ChangedTabsOptions {
  changeLog: ChangeLog;
  log: (message: string, err?: unknown) => void;
  pollMs?: number;
}

export class ChangedTabsWatch {
  readonly #changeLog: ChangeLog;
  readonly #looking: RetryStreak;
  readonly #pollMs: number;
  readonly #listeners = new Map<string, Set<TabListener>>();
  #seen: number | null = null;
  #timer: NodeJS.Timeout | null = null;
  #busy = false;

  constructor(options: ChangedTabsOptions) {
    this.#changeLog = options.changeLog;
    this.#pollMs = options.pollMs ?? 250;
    this.#looking = new RetryStreak({
      name: 'Watching for changed tabs',
      log: options.log,
      minMs: this.#pollMs,
    });
  }

  /** Calls `listener` after each recorded change of the tab; returns how to stop. */
  listen(spreadsheetId: string, sourceSheetId: string, listener: TabListener): () => void {
    const id = tabKey(spreadsheetId, sourceSheetId);
    const set = this.#listeners.get(id) ?? new Set<TabListener>();
    this.#listeners.set(id, set);
    set.add(listener);
    this.#start();
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(id);
      if (this.#listeners.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#seen = null;
  }

  #start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#look(), this.#pollMs);
    this.#timer.unref();
    this.#look();
  }

  #look(): void {
    if (this.#busy || !this.#looking.due()) return;
    this.#busy = true;
    this.#check()
      .then(
        () => this.#looking.succeeded(),
        (err: unknown) => this.#looking.failed(err),
      )
      .finally(() => {
        this.#busy = false;
      });
  }

  async #check(): Promise<void> {
    const head = await this.#changeLog.head();
    // Listening starts at the log's end as the first look finds it: only later changes are told.
    if (this.#seen === null || head === this.#seen) {
      this.#seen ??= head;
      return;
    }
    const changed = await this.#changeLog.tabsAfter(this.#seen);
    this.#seen = head;
    for (const tab of changed) {
      for (const listener of this.#listeners.get(tabKey(tab.spreadsheetId, tab.sourceSheetId)) ?? [])
        listener(tab);
    }
  }
}

const tabKey = (spreadsheetId: string, sourceSheetId: string) => `${spreadsheetId}\u0000${sourceSheetId}`;
