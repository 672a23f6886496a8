import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { TabContent } from '../repositories/baselines.ts';
import type {
  ChangeRecording,
  RecordingRequest,
  RowChanges,
  TabRecording,
} from '../repositories/change-log.ts';
import { encodeCheckpointPaced } from './baseline-format.ts';
import type { SqliteBaselines } from './baselines.ts';
import type { SqliteChangeLog } from './change-log.ts';

/** What a recording worked out before its transaction, and the state of the baselines it is based on. */
interface Prepared {
  stamp: string;
  tabs: TabRecording[];
  encoded: ReadonlyMap<TabContent, Buffer>;
}

/**
 * The change recording in SQLite (repositories/change-log.ts): one IMMEDIATE transaction (the write lock is
 * taken up front, so what it reads stays true until it commits) that appends the change log, queues the
 * notifications (the outbox), renames the webhooks of a renamed tab and stores the baselines. The webhook and
 * delivery statements it needs are its own, so the transaction never waits on another repository's promise.
 */
export class SqliteChangeRecording implements ChangeRecording {
  readonly #db: Database.Database;
  readonly #baselines: SqliteBaselines;
  readonly #changeLog: SqliteChangeLog;
  readonly #webhooksOf: Database.Statement<[string, string], { id: string; events: string }>;
  readonly #renameWebhooks: Database.Statement<[string, string, string, string]>;
  readonly #lastTimestamp: Database.Statement<[string], number>;
  readonly #setTimestamp: Database.Statement<[number, string]>;
  readonly #enqueue: Database.Statement<[string, string, string, string, number, number]>;

  constructor(db: Database.Database, baselines: SqliteBaselines, changeLog: SqliteChangeLog) {
    this.#db = db;
    this.#baselines = baselines;
    this.#changeLog = changeLog;
    this.#webhooksOf = db.prepare(
      `SELECT id, events FROM webhooks WHERE spreadsheet_id = ? AND source_sheet_id = ?
       ORDER BY created_at, rowid`,
    );
    this.#renameWebhooks = db.prepare(
      'UPDATE webhooks SET sheet_name = ? WHERE spreadsheet_id = ? AND source_sheet_id = ? AND sheet_name != ?',
    );
    this.#lastTimestamp = db
      .prepare<[string], number>('SELECT last_timestamp_ms FROM webhooks WHERE id = ?')
      .pluck();
    this.#setTimestamp = db.prepare('UPDATE webhooks SET last_timestamp_ms = ? WHERE id = ?');
    this.#enqueue = db.prepare(
      `INSERT INTO deliveries (id, webhook_id, event, payload, state, attempts, next_attempt_at, replay, created_at)
       VALUES (?, ?, ?, ?, 'pending', 0, ?, 0, ?)`,
    );
  }

  async record(request: RecordingRequest): Promise<{ queued: number }> {
    const prepared = await this.#prepare(request);
    const queued = this.#db.transaction(() => this.#recordNow(request, prepared)).immediate();
    return { queued };
  }

  /**
   * The slow parts of a recording, done before its transaction and a slice at a time, so the service answers
   * meanwhile (a tab of a million rows takes seconds to encode): the stored baselines read on a first sight,
   * the plan, and the checkpoints it will store, encoded. The transaction takes them when nothing was recorded
   * for the spreadsheet meanwhile (by another process sharing the data dir), and otherwise works it out again.
   */
  async #prepare(request: RecordingRequest): Promise<Prepared> {
    const { spreadsheetId } = request;
    const stamp = this.#baselines.stamp(spreadsheetId);
    const tabs = request.plan(request.previous ?? (await this.#baselines.load(spreadsheetId)));
    const encoded = new Map<TabContent, Buffer>();
    for (const tab of tabs) {
      if (this.#checkpointDue(spreadsheetId, tab))
        encoded.set(tab.content, await encodeCheckpointPaced(tab.content));
    }
    return { stamp, tabs, encoded };
  }

  #checkpointDue(spreadsheetId: string, { sourceSheetId, checkpoint, rows }: TabRecording): boolean {
    if (checkpoint === 'now') return true;
    if (rows === null) return false;
    const edits = this.#baselines.editsAfterCheckpoint(spreadsheetId, sourceSheetId) + rows.edits.length;
    return edits > checkpoint.whenEditsOver;
  }

  #recordNow(request: RecordingRequest, prepared: Prepared): number {
    const { spreadsheetId, version, previous } = request;
    // Another process sharing the data dir (the CLI registering a webhook, a second server) recorded this
    // version already, against the same stored baseline: recording it again would send every change twice.
    if (previous && this.#baselines.hasVersion(spreadsheetId, version)) return 0;
    const fresh = this.#baselines.stamp(spreadsheetId) === prepared.stamp;
    const tabs = fresh ? prepared.tabs : request.plan(previous ?? this.#baselines.loadNow(spreadsheetId));
    let queued = 0;
    for (const tab of tabs) queued += this.#recordTab(request, tab, prepared.encoded);
    this.#baselines.markVersion(spreadsheetId, version);
    return queued;
  }

  /** One tab's part of the transaction; returns the notifications it queued. */
  #recordTab(
    { spreadsheetId, version, nowMs }: RecordingRequest,
    tab: TabRecording,
    encoded: ReadonlyMap<TabContent, Buffer>,
  ): number {
    const { sourceSheetId, renamedTo, content, rows } = tab;
    // Webhooks follow their tab by id; the name they show follows a rename (also one made while stopped).
    if (renamedTo !== null) this.#renameWebhooks.run(renamedTo, spreadsheetId, sourceSheetId, renamedTo);
    let queued = 0;
    if (rows) {
      const instant = this.#changeLog.nextInstant(spreadsheetId, sourceSheetId, nowMs);
      for (const entry of rows.entries) {
        this.#changeLog.append(spreadsheetId, sourceSheetId, { ...entry, updatedAt: instant });
      }
      queued = this.#notify(spreadsheetId, sourceSheetId, rows, nowMs);
    }
    const { checkpoint } = tab;
    const storeWhole =
      checkpoint === 'now' ||
      (rows !== null &&
        this.#baselines.addEdits(spreadsheetId, sourceSheetId, rows.edits) > checkpoint.whenEditsOver);
    if (storeWhole)
      this.#baselines.checkpoint(spreadsheetId, sourceSheetId, content, nowMs, version, encoded.get(content));
    return queued;
  }

  /** Queues each notification for every webhook on the tab that subscribes to its event. */
  #notify(spreadsheetId: string, sourceSheetId: string, rows: RowChanges, nowMs: number): number {
    let queued = 0;
    for (const webhook of this.#webhooksOf.all(spreadsheetId, sourceSheetId)) {
      const events = JSON.parse(webhook.events) as string[];
      for (const notification of rows.notifications) {
        if (!events.includes(notification.event)) continue;
        const payload = notification.payload(webhook.id, this.#nextTimestamp(webhook.id, nowMs));
        const id = `dlv_${randomBytes(12).toString('base64url')}`;
        this.#enqueue.run(id, webhook.id, notification.event, payload, nowMs, nowMs);
        queued++;
      }
    }
    return queued;
  }

  /** A webhook's payload timestamps increase strictly, also within one millisecond. */
  #nextTimestamp(webhookId: string, nowMs: number): number {
    const ts = Math.max(nowMs, (this.#lastTimestamp.get(webhookId) ?? 0) + 1);
    this.#setTimestamp.run(ts, webhookId);
    return ts;
  }
}
