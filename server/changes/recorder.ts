import type Database from 'better-sqlite3';
import { diffRows } from './diff/row-diff.ts';
import { rowObject } from '../rows/formats/index.ts';
import type { SpreadsheetSnapshot, TabSnapshot } from '../sources/source.ts';
import type { Baseline, BaselineStore } from '../store/baselines.ts';
import type { ChangeLogStore } from '../store/change-log.ts';
import type { DeliveryStore } from '../store/deliveries.ts';
import type { WebhookStore } from '../store/webhooks.ts';
import { buildNotifications, type EventRules, payloadJson } from '../webhooks/events.ts';
import { loadRecordedTabs, type RecordedTab, wantsCheckpoint } from './baselines.ts';

export interface RecorderDeps {
  db: Database.Database;
  baselines: BaselineStore;
  changeLog: ChangeLogStore;
  webhooks: WebhookStore;
  deliveries: DeliveryStore;
  now: () => number;
  rules: EventRules;
  /** Called after a transaction queued notifications (wakes the delivery worker). */
  onQueued: () => void;
}

/**
 * Turns a new snapshot of a spreadsheet into recorded changes: per tab, the row diff against what was recorded
 * last, then in ONE SQLite transaction the change-log rows, the webhook notifications (the outbox) and the new
 * baseline. API writes call it after the source has the write and before the client is answered; detected
 * changes (a save in Excel) call it when the replica notices them. Either way a change is recorded once.
 */
export class ChangeRecorder {
  readonly #deps: RecorderDeps;

  constructor(deps: RecorderDeps) {
    this.#deps = deps;
  }

  /**
   * `before` is the snapshot last recorded for this spreadsheet in this process, or null on the first sight of
   * it since start; then the persisted baselines stand in, so changes made while SheetPort was stopped count.
   * A persisted baseline read from the very version the source has now holds the same content: if it differs,
   * the difference is in how the content is read (an engine upgrade, newly computed formula results), so the
   * baseline is replaced without a change-log entry or a notification.
   */
  record(spreadsheetId: string, before: SpreadsheetSnapshot | null, after: SpreadsheetSnapshot): void {
    const { db, baselines, changeLog, webhooks, deliveries, rules } = this.#deps;
    const previous: Map<string, Baseline | RecordedTab> = before
      ? new Map(before.tabs.map((t) => [t.sourceSheetId, toBaseline(t)]))
      : loadRecordedTabs(spreadsheetId, baselines, changeLog);
    const version = after.version;
    const nowMs = this.#deps.now();
    // The whole tab, as of its newest change-log entry (the entries so far are in it).
    const checkpoint = (tab: TabSnapshot) =>
      baselines.checkpoint(
        spreadsheetId,
        tab.sourceSheetId,
        toBaseline(tab),
        nowMs,
        version,
        changeLog.lastInstant(spreadsheetId, tab.sourceSheetId),
      );
    let queued = 0;
    db.transaction(() => {
      // Another process sharing the data dir (the CLI registering a webhook, a second server) recorded this
      // version already, against the same stored baseline: recording it again would send every change twice.
      if (before && baselines.hasVersion(spreadsheetId, version)) return;
      for (const tab of after.tabs) {
        const old = previous.get(tab.sourceSheetId);
        // Webhooks follow their tab by id; the name they show follows a rename (also one made while stopped).
        if (old?.name !== tab.name) webhooks.renameTab(spreadsheetId, tab.sourceSheetId, tab.name);
        if (!old) {
          // First sight of this tab: nothing to compare with yet.
          checkpoint(tab);
          continue;
        }
        // A tab the write did not touch is the very same snapshot array: nothing to diff.
        if (old.typed === tab.typed && old.name === tab.name && sameHeader(old.header, tab.header)) continue;
        const changes = diffRows(old.typed, tab.typed);
        const renamed = old.name !== tab.name || !sameHeader(old.header, tab.header);
        if (readFrom(old) === version) {
          // The same source version read differently: nothing changed in the spreadsheet itself.
          if (changes.length > 0 || renamed) checkpoint(tab);
          continue;
        }
        if (changes.length === 0) {
          if (renamed) checkpoint(tab);
          continue;
        }
        const instant = changeLog.nextInstant(spreadsheetId, tab.sourceSheetId, nowMs);
        for (const c of changes) {
          changeLog.append(spreadsheetId, tab.sourceSheetId, {
            row_index: c.row_index,
            change: c.kind,
            updatedAt: instant,
            values: c.after ? rowObject(tab.header, c.after) : null,
          });
        }
        const notifications = buildNotifications(changes, old.header, tab.header, rules);
        for (const webhook of webhooks.forTab(spreadsheetId, tab.sourceSheetId)) {
          for (const notification of notifications) {
            if (!webhook.events.includes(notification.event)) continue;
            const payload = payloadJson({
              webhookId: webhook.id,
              notification,
              spreadsheetId,
              sheetName: tab.name,
              timestampMs: webhooks.nextTimestamp(webhook.id, nowMs),
            });
            deliveries.enqueue(webhook.id, notification.event, payload, nowMs);
            queued++;
          }
        }
        // The entries just logged are the redo of the stored checkpoint; a new name or header (the entries
        // name their values by header) or many entries since the last checkpoint make a new one.
        const redo = renamed ? 0 : baselines.addRedoEntries(spreadsheetId, tab.sourceSheetId, changes.length);
        if (renamed || wantsCheckpoint(redo, tab.typed.length)) checkpoint(tab);
      }
      baselines.markVersion(spreadsheetId, version);
    })();
    if (queued > 0) this.#deps.onQueued();
  }
}

/** The source version a persisted baseline was read from; null for in-process snapshots and old baselines. */
function readFrom(baseline: Baseline | RecordedTab): string | null {
  return 'sourceVersion' in baseline ? baseline.sourceVersion : null;
}

function toBaseline(tab: TabSnapshot): Baseline {
  return { name: tab.name, header: tab.header, typed: tab.typed };
}

function sameHeader(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((h, i) => h === b[i]);
}
