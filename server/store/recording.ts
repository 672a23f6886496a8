/**
 * The change recording's statements in SQLite (repositories/rules/change-recording.ts), run inside one IMMEDIATE
 * transaction: the change log, the webhooks on a tab and their payload timestamps, the outbox and the baselines'
 * counters, checkpoints and row edits; a checkpoint's parts are stored before it (rules/checkpoint-parts.ts). Other processes sharing the data dir read the file itself, so there is
 * nothing to announce; the delivery worker notices their deliveries through SQLite's data_version.
 */
import type Database from 'better-sqlite3';
import type { ComparedTab } from '../repositories/baselines.ts';
import type { ChangeEntry } from '../repositories/change-log.ts';
import type {
  BaselineTab,
  QueuedDelivery,
  RecordedState,
  RecordingStatements,
  TabWebhook,
} from '../repositories/rules/change-recording.ts';
import { conditionOf } from '../repositories/rules/webhooks.ts';
import { SqliteBaselines } from './baselines.ts';

type Tab = [spreadsheetId: string, sourceSheetId: string];

export class SqliteRecordingStatements implements RecordingStatements {
  readonly #baselines: SqliteBaselines;
  readonly #stamp: Database.Statement<[string], string>;
  readonly #hasVersion: Database.Statement<[string, string], number>;
  readonly #editCount: Database.Statement<Tab, number>;
  readonly #rename: Database.Statement<[string, ...Tab, string]>;
  readonly #lastInstant: Database.Statement<Tab, number | null>;
  readonly #append: Database.Statement<[...Tab, number, string, number, string | null]>;
  readonly #webhooksOn: Database.Statement<Tab, { id: string; events: string; condition: string | null }>;
  readonly #lastTimestamp: Database.Statement<[string], number>;
  readonly #setTimestamp: Database.Statement<[number, string]>;
  readonly #enqueue: Database.Statement<[string, string, string, string, number, number]>;
  readonly #addRedo: Database.Statement<[...Tab, Buffer]>;
  readonly #countRedo: Database.Statement<[number, ...Tab], number>;
  readonly #put: Database.Statement<[...Tab, string, number, string]>;
  readonly #link: Database.Statement<[...Tab, string]>;
  readonly #putPart: Database.Statement<[string, number, Buffer, number]>;
  readonly #dropParts: Database.Statement<[string]>;
  readonly #dropStrays: Database.Statement<[number]>;
  readonly #dropRedo: Database.Statement<Tab>;
  readonly #mark: Database.Statement<[string, string, string]>;

  constructor(db: Database.Database) {
    this.#baselines = new SqliteBaselines(db);
    const pluck = <P extends unknown[], R>(sql: string) => db.prepare<P, R>(sql).pluck();
    // Moves with anything recorded for the spreadsheet: a version marked, a row edit added, a checkpoint.
    this.#stamp = pluck(
      `SELECT group_concat(source_sheet_id || ':' || IFNULL(source_version, '') || ':' || redo_entries || ':' ||
         updated_at, ',') FROM (SELECT * FROM tab_baselines WHERE spreadsheet_id = ? ORDER BY source_sheet_id)`,
    );
    this.#hasVersion = pluck(
      'SELECT 1 FROM tab_baselines WHERE spreadsheet_id = ? AND source_version = ? LIMIT 1',
    );
    this.#editCount = pluck(
      'SELECT redo_entries FROM tab_baselines WHERE spreadsheet_id = ? AND source_sheet_id = ?',
    );
    this.#rename = db.prepare(
      'UPDATE webhooks SET sheet_name = ? WHERE spreadsheet_id = ? AND source_sheet_id = ? AND sheet_name != ?',
    );
    this.#lastInstant = pluck(
      'SELECT MAX(updated_at) FROM change_log WHERE spreadsheet_id = ? AND source_sheet_id = ?',
    );
    this.#append = db.prepare(
      'INSERT INTO change_log (spreadsheet_id, source_sheet_id, updated_at, change, row_index, row_values) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#webhooksOn = db.prepare(
      'SELECT id, events, condition FROM webhooks WHERE spreadsheet_id = ? AND source_sheet_id = ? ORDER BY created_at, rowid',
    );
    this.#lastTimestamp = pluck('SELECT last_timestamp_ms FROM webhooks WHERE id = ?');
    this.#setTimestamp = db.prepare('UPDATE webhooks SET last_timestamp_ms = ? WHERE id = ?');
    this.#enqueue = db.prepare(
      `INSERT INTO deliveries (id, webhook_id, event, payload, state, attempts, next_attempt_at, replay, created_at)
       VALUES (?, ?, ?, ?, 'pending', 0, ?, 0, ?)`,
    );
    this.#addRedo = db.prepare(
      'INSERT INTO baseline_redo (spreadsheet_id, source_sheet_id, content) VALUES (?, ?, ?)',
    );
    this.#countRedo = pluck(
      `UPDATE tab_baselines SET redo_entries = redo_entries + ?
       WHERE spreadsheet_id = ? AND source_sheet_id = ? RETURNING redo_entries`,
    );
    this.#put = db.prepare(
      `INSERT INTO tab_baselines (spreadsheet_id, source_sheet_id, name, updated_at, source_version, redo_entries)
       VALUES (?, ?, ?, ?, ?, 0)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET
         name = excluded.name, updated_at = excluded.updated_at, source_version = excluded.source_version,
         redo_entries = 0`,
    );
    // The parts of the checkpoint replaced go too (migration 13's trigger).
    this.#link = db.prepare(
      `INSERT INTO tab_checkpoints (spreadsheet_id, source_sheet_id, checkpoint_id) VALUES (?, ?, ?)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET checkpoint_id = excluded.checkpoint_id`,
    );
    this.#putPart = db.prepare(
      'INSERT INTO checkpoint_parts (checkpoint_id, part, content, created_at) VALUES (?, ?, ?, ?)',
    );
    this.#dropParts = db.prepare('DELETE FROM checkpoint_parts WHERE checkpoint_id = ?');
    this.#dropStrays = db.prepare(
      `DELETE FROM checkpoint_parts WHERE created_at < ?
         AND checkpoint_id NOT IN (SELECT checkpoint_id FROM tab_checkpoints)`,
    );
    this.#dropRedo = db.prepare('DELETE FROM baseline_redo WHERE spreadsheet_id = ? AND source_sheet_id = ?');
    this.#mark = db.prepare(
      'UPDATE tab_baselines SET source_version = ? WHERE spreadsheet_id = ? AND source_version IS NOT ?',
    );
  }

  recorded(spreadsheetId: string, version: string): RecordedState {
    return {
      stamp: this.#stamp.get(spreadsheetId) ?? '',
      versionRecorded: this.#hasVersion.get(spreadsheetId, version) !== undefined,
    };
  }

  baselines(spreadsheetId: string): Map<string, ComparedTab> {
    return this.#baselines.loadNow(spreadsheetId);
  }

  editsAfterCheckpoint(tab: BaselineTab): number {
    return this.#editCount.get(tab.spreadsheetId, tab.sourceSheetId) ?? 0;
  }

  renameTabWebhooks(tab: BaselineTab, name: string): boolean {
    return this.#rename.run(name, tab.spreadsheetId, tab.sourceSheetId, name).changes > 0;
  }

  lastInstant(tab: BaselineTab): number {
    return this.#lastInstant.get(tab.spreadsheetId, tab.sourceSheetId) ?? 0;
  }

  append(tab: BaselineTab, entries: readonly ChangeEntry[]): void {
    for (const e of entries) {
      const values = e.values ? JSON.stringify(e.values) : null;
      this.#append.run(tab.spreadsheetId, tab.sourceSheetId, e.updatedAt, e.change, e.row_index, values);
    }
  }

  webhooksOnTab(tab: BaselineTab): TabWebhook[] {
    return this.#webhooksOn.all(tab.spreadsheetId, tab.sourceSheetId).map((w) => ({
      id: w.id,
      events: JSON.parse(w.events) as string[],
      condition: conditionOf(w.condition),
    }));
  }

  takeTimestamps(webhookId: string, firstAtLeast: number, count: number): number {
    const first = Math.max(firstAtLeast, (this.#lastTimestamp.get(webhookId) ?? 0) + 1);
    this.#setTimestamp.run(first + count - 1, webhookId);
    return first;
  }

  enqueue(deliveries: readonly QueuedDelivery[]): void {
    for (const d of deliveries) this.#enqueue.run(d.id, d.webhookId, d.event, d.payload, d.atMs, d.atMs);
  }

  addEdits(tab: BaselineTab, redo: Buffer, count: number): number {
    this.#addRedo.run(tab.spreadsheetId, tab.sourceSheetId, redo);
    return this.#countRedo.get(count, tab.spreadsheetId, tab.sourceSheetId) ?? count;
  }

  putCheckpointPart(checkpointId: string, part: number, content: Buffer, nowMs: number): void {
    this.#putPart.run(checkpointId, part, content, nowMs);
  }

  dropCheckpoint(checkpointId: string): void {
    this.#dropParts.run(checkpointId);
  }

  dropStrayCheckpoints(beforeMs: number): void {
    this.#dropStrays.run(beforeMs);
  }

  checkpoint(tab: BaselineTab, name: string, nowMs: number, version: string, checkpointId: string): void {
    this.#put.run(tab.spreadsheetId, tab.sourceSheetId, name, nowMs, version);
    this.#link.run(tab.spreadsheetId, tab.sourceSheetId, checkpointId);
    this.#dropRedo.run(tab.spreadsheetId, tab.sourceSheetId);
  }

  markVersion(spreadsheetId: string, version: string): string {
    this.#mark.run(version, spreadsheetId, version);
    return this.#stamp.get(spreadsheetId) ?? '';
  }

  /** Other processes read the file itself. */
  announce(): void {}
}
