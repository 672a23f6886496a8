/**
 * What to record of a new snapshot, decided per tab from what it is compared with (the content recorded last,
 * or a baseline on the first sight since start). Pure: the change recording (repositories/change-log.ts)
 * commits the decisions in one transaction.
 */

import { diffSteps, type RowChange } from '../diff/row-diff.ts';
import { runNow, runPaced, type Steps } from '../lib/steps.ts';
import type { ComparedTab, RowEdit, TabContent } from '../repositories/baselines.ts';
import type { PlannedNotification, RowChanges, TabRecording } from '../repositories/change-log.ts';
import type { WebhookCondition } from '../repositories/webhooks.ts';
import { rowObject } from '../rows/formats/index.ts';
import { readIdentityOf } from '../sources/read-identity.ts';
import type { SpreadsheetSnapshot, TabSnapshot } from '../sources/source.ts';
import { qualifyingChanges } from '../webhooks/conditions.ts';
import { buildNotifications, type EventRules, payloadJson } from '../webhooks/events.ts';

export function tabContent(tab: TabSnapshot): TabContent {
  const content = { name: tab.name, header: tab.header, typed: tab.typed };
  const readIdentity = readIdentityOf(content.typed);
  return readIdentity === undefined ? content : { ...content, readIdentity };
}

/** A snapshot recorded in this process as what the next one is compared with. */
export function comparedTabs(snapshot: SpreadsheetSnapshot): Map<string, ComparedTab> {
  return new Map(snapshot.tabs.map((t) => [t.sourceSheetId, { ...tabContent(t), sourceVersion: null }]));
}

/**
 * Each tab of `after` that needs recording. A baseline read from the very version the source has now holds the
 * same content: if it differs, the difference is in how the content is read (an engine upgrade, newly computed
 * formula results), so the baseline is replaced without a change-log entry or a notification.
 */
export function planRecording(
  spreadsheetId: string,
  previous: ReadonlyMap<string, ComparedTab>,
  after: SpreadsheetSnapshot,
  rules: EventRules,
): TabRecording[] {
  return runNow(planSteps(spreadsheetId, previous, after, rules));
}

/**
 * `planRecording` run paced (lib/steps.ts), for the plan a recording makes before its transaction
 * (repositories/rules/change-recording.ts): an edit in a large tab holds no request while it is diffed.
 */
export function planRecordingPaced(
  spreadsheetId: string,
  previous: ReadonlyMap<string, ComparedTab>,
  after: SpreadsheetSnapshot,
  rules: EventRules,
): Promise<TabRecording[]> {
  return runPaced(planSteps(spreadsheetId, previous, after, rules));
}

function* planSteps(
  spreadsheetId: string,
  previous: ReadonlyMap<string, ComparedTab>,
  after: SpreadsheetSnapshot,
  rules: EventRules,
): Steps<TabRecording[]> {
  const plans: TabRecording[] = [];
  for (const tab of after.tabs) {
    const plan = yield* planTab(spreadsheetId, previous.get(tab.sourceSheetId), tab, after.version, rules);
    if (plan) plans.push(plan);
  }
  return plans;
}

function* planTab(
  spreadsheetId: string,
  old: ComparedTab | undefined,
  tab: TabSnapshot,
  version: string,
  rules: EventRules,
): Steps<TabRecording | null> {
  const content = tabContent(tab);
  const base = { sourceSheetId: tab.sourceSheetId, content };
  // First sight of this tab: nothing to compare with yet; it becomes the baseline.
  if (!old) return { ...base, renamedTo: tab.name, rows: null, checkpoint: 'now' };
  const renamedTo = old.name !== tab.name ? tab.name : null;
  const sameHeading = renamedTo === null && sameHeader(old.header, tab.header);
  // A tab the write did not touch is the very same snapshot array: nothing to diff.
  if (old.typed === tab.typed && sameHeading) return null;
  const changes = yield* diffSteps(old.typed, tab.typed);
  // The same source version read differently: nothing changed in the spreadsheet itself.
  if (old.sourceVersion === version || changes.length === 0) {
    // A baseline that had to be decoded (edits after its checkpoint, or a checkpoint of an older version) and
    // holds what was read: checkpointed again, so the next start checks it against its read instead of decoding
    // it (rules/baseline-restore.ts; at a million rows, seconds and 370 MB for the collector to take back).
    const decoded = old.sourceVersion !== null;
    const restate = changes.length > 0 || !sameHeading || decoded;
    return restate ? { ...base, renamedTo, rows: null, checkpoint: 'now' } : null;
  }
  const rows = rowChanges(spreadsheetId, old, tab, changes, rules);
  // The edits name no header: a new name or header makes a new checkpoint, as do many edits since the last.
  const checkpoint = sameHeading ? { whenEditsOver: Math.max(1_000, tab.typed.length / 4) } : 'now';
  return { ...base, renamedTo, rows, checkpoint };
}

function rowChanges(
  spreadsheetId: string,
  old: ComparedTab,
  tab: TabSnapshot,
  changes: readonly RowChange[],
  rules: EventRules,
): RowChanges {
  const entries = changes.map((c) => ({
    row_index: c.row_index,
    change: c.kind,
    values: c.after ? rowObject(tab.header, c.after) : null,
  }));
  const edits = changes.map((c): RowEdit => ({ change: c.kind, row: c.row_index, cells: c.after }));
  // Webhooks with the same condition (most have none) share their notifications.
  const planned = new Map<string, PlannedNotification[]>();
  const notificationsFor = (condition: WebhookCondition | null): PlannedNotification[] => {
    const key = JSON.stringify(condition);
    let list = planned.get(key);
    if (!list) {
      const kept = qualifyingChanges(changes, old.header, tab.header, condition);
      list = buildNotifications(kept, old.header, tab.header, rules).map((notification) => ({
        event: notification.event,
        payload: (webhookId: string, timestampMs: number) =>
          payloadJson({ webhookId, notification, spreadsheetId, sheetName: tab.name, timestampMs }),
      }));
      planned.set(key, list);
    }
    return list;
  };
  return { entries, edits, notificationsFor };
}

function sameHeader(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((h, i) => h === b[i]);
}
