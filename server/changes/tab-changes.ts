/**
 * The one source of "a tab changed" in a service: MCP resource subscriptions and the dashboard's event stream
 * listen here. It is told when something may have been recorded: a recording of this process committed (the
 * recorder), another instance recorded one (team mode's NOTIFY), or another process committed to the shared
 * SQLite database (its `data_version`, which the delivery worker watches). Then it reads the change log's end
 * (two index lookups; no file is read) and tells each listener the tabs that have entries since it last looked.
 * Nothing is polled, and nothing is read while nobody listens.
 */
import { RetryStreak } from '../lib/retry-streak.ts';
import type { ChangedTab, ChangeLog } from '../repositories/change-log.ts';

/** Tabs with change-log entries since the last look, and the log's end (`head`) they were read up to. */
export interface TabChangesSeen {
  head: number;
  tabs: readonly ChangedTab[];
}

export type TabListener = (tab: ChangedTab) => void;
export type ChangesListener = (seen: TabChangesSeen) => void;

export interface TabChangesOptions {
  changeLog: Pick<ChangeLog, 'head' | 'tabsAfter'>;
  log: (message: string, err?: unknown) => void;
  /** The wait before a failed look (the database unreadable) is tried again; doubled after each failure. */
  retryMs?: number;
}

export class TabChanges {
  readonly #changeLog: TabChangesOptions['changeLog'];
  readonly #log: TabChangesOptions['log'];
  readonly #streak: RetryStreak;
  readonly #everyTab = new Set<ChangesListener>();
  readonly #byTab = new Map<string, Set<TabListener>>();
  /** How many tabs of each spreadsheet someone listens to: a recording of another one needs no look. */
  readonly #spreadsheets = new Map<string, number>();
  /** The change log's end as last read; null while nobody listens (a new listener starts from the end). */
  #seen: number | null = null;
  #underWay: Promise<void> | null = null;
  #lookAgain = false;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: TabChangesOptions) {
    this.#changeLog = options.changeLog;
    this.#log = options.log;
    this.#streak = new RetryStreak({
      name: 'Reading which tabs changed',
      log: options.log,
      minMs: options.retryMs ?? 250,
    });
  }

  /** Calls `listener` with every tab that changes from now on; returns how to stop. */
  listen(listener: ChangesListener): () => void {
    this.#everyTab.add(listener);
    this.#started();
    return () => {
      this.#everyTab.delete(listener);
      this.#stoppedOne();
    };
  }

  /** Calls `listener` after each recorded change of one tab from now on; returns how to stop. */
  listenTab(spreadsheetId: string, sourceSheetId: string, listener: TabListener): () => void {
    const id = tabKey(spreadsheetId, sourceSheetId);
    const set = this.#byTab.get(id) ?? new Set<TabListener>();
    this.#byTab.set(id, set);
    if (!set.has(listener))
      this.#spreadsheets.set(spreadsheetId, (this.#spreadsheets.get(spreadsheetId) ?? 0) + 1);
    set.add(listener);
    this.#started();
    let listening = true;
    return () => {
      if (!listening) return;
      listening = false;
      set.delete(listener);
      if (set.size === 0) this.#byTab.delete(id);
      const left = (this.#spreadsheets.get(spreadsheetId) ?? 1) - 1;
      if (left > 0) this.#spreadsheets.set(spreadsheetId, left);
      else this.#spreadsheets.delete(spreadsheetId);
      this.#stoppedOne();
    };
  }

  /**
   * Something may have been recorded: of `spreadsheetId`, or of any spreadsheet (null: another process committed,
   * or the word of other instances may have been missed). Looks at the log's end unless nobody listens for it.
   */
  recorded(spreadsheetId: string | null): void {
    if (this.#closed || !this.#listening()) return;
    if (spreadsheetId !== null && this.#everyTab.size === 0 && !this.#spreadsheets.has(spreadsheetId)) return;
    this.#look();
  }

  /** Resolves once the looks asked for so far are done: a new listener's start is then the log's end. */
  async current(): Promise<void> {
    while (this.#underWay) await this.#underWay;
  }

  close(): void {
    this.#closed = true;
    this.#everyTab.clear();
    this.#byTab.clear();
    this.#spreadsheets.clear();
    this.#stoppedOne();
  }

  #listening(): boolean {
    return this.#everyTab.size > 0 || this.#byTab.size > 0;
  }

  /** The first listener: where the log ends now is where its news starts. */
  #started(): void {
    if (this.#seen === null) this.#look();
  }

  #stoppedOne(): void {
    if (this.#listening()) return;
    this.#seen = null;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = null;
  }

  /** One look at a time; asks made meanwhile are served by one more look after it. */
  #look(): void {
    if (this.#underWay) {
      this.#lookAgain = true;
      return;
    }
    this.#underWay = this.#lookWhileAsked().finally(() => {
      this.#underWay = null;
    });
  }

  async #lookWhileAsked(): Promise<void> {
    do {
      this.#lookAgain = false;
      if (!this.#listening() || this.#closed) return;
      try {
        await this.#lookOnce();
        this.#streak.succeeded();
      } catch (err) {
        this.#streak.failed(err);
        this.#retryLater();
        return;
      }
    } while (this.#lookAgain);
  }

  /** A failed look is tried again after the streak's wait: a change recorded meanwhile is not lost. */
  #retryLater(): void {
    if (this.#retry || this.#closed) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      this.#look();
    }, this.#streak.waitMs());
    this.#retry.unref();
  }

  async #lookOnce(): Promise<void> {
    // The end first: an entry committed between the two reads is told now and maybe once more, never missed.
    const head = await this.#changeLog.head();
    // Everyone stopped listening meanwhile: the next listener starts from the end it finds.
    if (!this.#listening()) return;
    if (this.#seen === null || head === this.#seen) {
      this.#seen ??= head;
      return;
    }
    const tabs = await this.#changeLog.tabsAfter(this.#seen);
    if (!this.#listening()) return;
    this.#seen = head;
    this.#tell({ head, tabs });
  }

  #tell(seen: TabChangesSeen): void {
    const calls: (() => void)[] = [];
    for (const listener of this.#everyTab) calls.push(() => listener(seen));
    for (const tab of seen.tabs) {
      for (const listener of this.#byTab.get(tabKey(tab.spreadsheetId, tab.sourceSheetId)) ?? [])
        calls.push(() => listener(tab));
    }
    for (const call of calls) {
      try {
        call();
      } catch (err) {
        this.#log('A listener of changed tabs failed', err);
      }
    }
  }
}

const tabKey = (spreadsheetId: string, sourceSheetId: string) => `${spreadsheetId}\u0000${sourceSheetId}`;
