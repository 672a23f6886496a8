/**
 * The change log: one entry per changed row of a tab, which the public feed (`updated_since`) and the
 * dashboard's live preview read; and the change recording, which stores a recorded change's entries, its
 * notifications (the outbox) and the tab's baseline together or not at all.
 */
import type { CellValue } from '../sources/source.ts';
import type { ComparedTab, CurrentContent, RowEdit, TabContent } from './baselines.ts';
import type { WebhookCondition } from './webhooks.ts';

export interface ChangeEntry {
  row_index: number;
  change: 'inserted' | 'updated' | 'deleted';
  /** Epoch ms; unique per recorded change of a tab and increasing. */
  updatedAt: number;
  values: Record<string, CellValue> | null;
}

export interface ChangeFeedPage {
  total: number;
  /** The instant of the newest change after `sinceMs` (to resume from); null when there is none. */
  newest: number | null;
  data: ChangeEntry[];
}

export interface ChangedTab {
  spreadsheetId: string;
  sourceSheetId: string;
}

export interface ChangeLog {
  /** The feed: changes of a tab after `sinceMs`, oldest first. */
  page(
    spreadsheetId: string,
    sourceSheetId: string,
    sinceMs: number,
    limit: number,
    offset: number,
  ): Promise<ChangeFeedPage>;
  /** The log's end (0 when empty): every recorded change, by this process or another, moves it. */
  head(): Promise<number>;
  /** Each tab with an entry after `head`, once. */
  tabsAfter(head: number): Promise<ChangedTab[]>;
}

/** A notification one recorded change produces, for every webhook on the tab that subscribes to `event`. */
export interface PlannedNotification {
  event: string;
  /** The exact bytes to send to one webhook, stamped with that webhook's next timestamp. */
  payload(webhookId: string, timestampMs: number): string;
}

/** Rows of a tab that changed since the content it was compared with. */
export interface RowChanges {
  /** The change log's entries, in diff order (their instant is given when they are stored). */
  entries: Omit<ChangeEntry, 'updatedAt'>[];
  /** The same rows, positional: the row edits the baseline keeps after its checkpoint. */
  edits: RowEdit[];
  /** The notifications for a webhook with this condition (null: none), the rows that qualify only. */
  notificationsFor(condition: WebhookCondition | null): PlannedNotification[];
}

/** What to record of one tab (tabs whose content and name did not change have none). */
export interface TabRecording {
  sourceSheetId: string;
  /** The tab's name when it differs from the one compared with: the webhooks on the tab show it from now. */
  renamedTo: string | null;
  /** The tab's content now. */
  content: TabContent;
  /** Rows to log and notify; null when no row changed. */
  rows: RowChanges | null;
  /**
   * Store `content` as the baseline's new checkpoint: 'now', or once the row edits stored after the last
   * checkpoint number more than `whenEditsOver` (else `rows.edits` are added to it).
   */
  checkpoint: 'now' | { whenEditsOver: number };
}

export interface RecordingRequest {
  spreadsheetId: string;
  /** The source version recorded: every baseline of the spreadsheet matches it afterwards. */
  version: string;
  nowMs: number;
  /**
   * The content last recorded in this process, by source sheet id; null on the first sight since start, when
   * the stored baselines stand in (read before the transaction, and again in it if another process recorded
   * meanwhile).
   */
  previous: ReadonlyMap<string, ComparedTab> | null;
  /** What this recording has read (the source version, each tab's content): a baseline stored from the same
   * version and holding the same stands for it without being decoded (rules/baseline-restore.ts). */
  current: CurrentContent;
  /** The decisions (pure): what to record of each tab, given what it is compared with. */
  plan(previous: ReadonlyMap<string, ComparedTab>): TabRecording[];
  /** The same decisions a slice at a time, for the plan made before the transaction (a large tab's diff). */
  planPaced?(previous: ReadonlyMap<string, ComparedTab>): Promise<TabRecording[]>;
}

export interface ChangeRecording {
  /**
   * Records a plan atomically: change-log entries, notifications and baselines together or not at all. A
   * version recorded already (by another process sharing the data dir) against in-process content records
   * nothing, so nothing is sent twice. Resolves to the number of notifications queued.
   */
  record(request: RecordingRequest): Promise<{ queued: number }>;
}
