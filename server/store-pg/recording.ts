/**
 * The change recording's statements in PostgreSQL (repositories/rules/change-recording.ts), bound to its
 * transaction, which holds the spreadsheet's advisory lock: the change log (appended under one more lock, so seq
 * grows in commit order), the webhooks on a tab and their payload timestamps, the outbox, the baselines and,
 * per spreadsheet, the version last recorded and its generation (recorded_versions): the stamp that tells an
 * instance another one recorded meanwhile. Every instance hears of a recording by NOTIFY as it commits.
 */
import type { ComparedTab } from '../repositories/baselines.ts';
import type { ChangeEntry } from '../repositories/change-log.ts';
import type {
  BaselineTab,
  Done,
  QueuedDelivery,
  RecordedState,
  RecordingStatements,
  TabWebhook,
} from '../repositories/rules/change-recording.ts';
import { conditionOf } from '../repositories/rules/webhooks.ts';
import { PgBaselines } from './baselines.ts';
import { CHANNELS, recordedPayload } from './channels.ts';
import type { Queryable } from './pool.ts';
import type { Bind } from './transactional.ts';

/** The advisory lock every transaction appending to the change log holds until it commits (hashtext's key space). */
const APPEND_LOCK = 'sheetport:change_log';

export const pgRecordingStatements: Bind<RecordingStatements> = (db) => new PgRecordingStatements(db);

class PgRecordingStatements implements RecordingStatements {
  readonly #db: Queryable;

  constructor(db: Queryable) {
    this.#db = db;
  }

  async #one<T>(sql: string, params: unknown[]): Promise<T | undefined> {
    return (await this.#db.query(sql, params)).rows[0] as T | undefined;
  }

  async recorded(spreadsheetId: string, version: string): Promise<RecordedState> {
    const row = await this.#one<{ version: string; generation: number }>(
      'SELECT version, generation FROM recorded_versions WHERE spreadsheet_id = $1',
      [spreadsheetId],
    );
    return { stamp: String(row?.generation ?? 0), versionRecorded: row?.version === version };
  }

  baselines(spreadsheetId: string): Promise<Map<string, ComparedTab>> {
    return new PgBaselines(this.#db).load(spreadsheetId);
  }

  async editsAfterCheckpoint(tab: BaselineTab): Promise<number> {
    const row = await this.#one<{ n: number }>(
      'SELECT redo_entries AS n FROM tab_baselines WHERE spreadsheet_id = $1 AND source_sheet_id = $2',
      [tab.spreadsheetId, tab.sourceSheetId],
    );
    return row?.n ?? 0;
  }

  async renameTabWebhooks(tab: BaselineTab, name: string): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      `UPDATE webhooks SET sheet_name = $1
       WHERE spreadsheet_id = $2 AND source_sheet_id = $3 AND sheet_name <> $1`,
      [name, tab.spreadsheetId, tab.sourceSheetId],
    );
    return (rowCount ?? 0) > 0;
  }

  async lastInstant(tab: BaselineTab): Promise<number> {
    const row = await this.#one<{ last: number | null }>(
      'SELECT MAX(updated_at) AS last FROM change_log WHERE spreadsheet_id = $1 AND source_sheet_id = $2',
      [tab.spreadsheetId, tab.sourceSheetId],
    );
    return row?.last ?? 0;
  }

  /** Under the append lock until commit: a reader that saw seq n never later finds an entry below it. */
  async append(tab: BaselineTab, entries: readonly ChangeEntry[]): Promise<void> {
    await this.#db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [APPEND_LOCK]);
    await this.#db.query(
      `INSERT INTO change_log (spreadsheet_id, source_sheet_id, row_index, change, updated_at, row_values)
       SELECT $1, $2, e.row_index, e.change, e.updated_at, e.row_values
       FROM unnest($3::int[], $4::text[], $5::bigint[], $6::text[]) WITH ORDINALITY
         AS e(row_index, change, updated_at, row_values, n)
       ORDER BY e.n`,
      [
        tab.spreadsheetId,
        tab.sourceSheetId,
        entries.map((e) => e.row_index),
        entries.map((e) => e.change),
        entries.map((e) => e.updatedAt),
        entries.map((e) => (e.values ? JSON.stringify(e.values) : null)),
      ],
    );
  }

  /** Events read as JSON whether migration 1 stored them as JSON text, JSONB or an array. */
  async webhooksOnTab(tab: BaselineTab): Promise<TabWebhook[]> {
    const { rows } = await this.#db.query<{ id: string; events: unknown; condition: string | null }>(
      `SELECT id, to_jsonb(events) AS events, condition FROM webhooks
       WHERE spreadsheet_id = $1 AND source_sheet_id = $2 ORDER BY created_at, seq`,
      [tab.spreadsheetId, tab.sourceSheetId],
    );
    return rows.map((r) => ({
      id: r.id,
      events: (typeof r.events === 'string' ? JSON.parse(r.events) : r.events) as string[],
      condition: conditionOf(r.condition),
    }));
  }

  async takeTimestamps(webhookId: string, firstAtLeast: number, count: number): Promise<number> {
    const row = await this.#one<{ first: number }>(
      `UPDATE webhooks SET last_timestamp_ms = GREATEST($1::bigint, last_timestamp_ms + 1) + $3::bigint - 1
       WHERE id = $2 RETURNING last_timestamp_ms - $3::bigint + 1 AS first`,
      [firstAtLeast, webhookId, count],
    );
    return row?.first ?? firstAtLeast;
  }

  async enqueue(deliveries: readonly QueuedDelivery[]): Promise<void> {
    await this.#db.query(
      `INSERT INTO deliveries (id, webhook_id, event, payload, state, attempts, next_attempt_at, replay, created_at)
       SELECT d.id, d.webhook_id, d.event, d.payload, 'pending', 0, d.at, false, d.at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) WITH ORDINALITY
         AS d(id, webhook_id, event, payload, at, n)
       ORDER BY d.n`,
      [
        deliveries.map((d) => d.id),
        deliveries.map((d) => d.webhookId),
        deliveries.map((d) => d.event),
        deliveries.map((d) => d.payload),
        deliveries.map((d) => d.atMs),
      ],
    );
  }

  async addEdits(tab: BaselineTab, redo: Buffer, count: number): Promise<number> {
    const row = await this.#one<{ n: number }>(
      `WITH added AS (
         INSERT INTO baseline_redo (spreadsheet_id, source_sheet_id, content) VALUES ($2, $3, $4))
       UPDATE tab_baselines SET redo_entries = redo_entries + $1
       WHERE spreadsheet_id = $2 AND source_sheet_id = $3 RETURNING redo_entries AS n`,
      [count, tab.spreadsheetId, tab.sourceSheetId, redo],
    );
    return row?.n ?? count;
  }

  async putCheckpointPart(checkpointId: string, part: number, content: Buffer, nowMs: number) {
    await this.#db.query(
      'INSERT INTO checkpoint_parts (checkpoint_id, part, content, created_at) VALUES ($1, $2, $3, $4)',
      [checkpointId, part, content, nowMs],
    );
  }

  async dropCheckpoint(checkpointId: string) {
    await this.#db.query('DELETE FROM checkpoint_parts WHERE checkpoint_id = $1', [checkpointId]);
  }

  async dropStrayCheckpoints(beforeMs: number) {
    await this.#db.query(
      `DELETE FROM checkpoint_parts p WHERE p.created_at < $1
         AND NOT EXISTS (SELECT 1 FROM tab_checkpoints c WHERE c.checkpoint_id = p.checkpoint_id)`,
      [beforeMs],
    );
  }

  /** The parts of the checkpoint replaced go too (migration 5's trigger). */
  async checkpoint(tab: BaselineTab, name: string, nowMs: number, version: string, checkpointId: string) {
    const at = [tab.spreadsheetId, tab.sourceSheetId];
    await this.#db.query(
      `INSERT INTO tab_baselines (spreadsheet_id, source_sheet_id, name, updated_at, source_version, redo_entries)
       VALUES ($1, $2, $3, $4, $5, 0)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET
         name = excluded.name, updated_at = excluded.updated_at, source_version = excluded.source_version,
         redo_entries = 0`,
      [...at, name, nowMs, version],
    );
    await this.#db.query(
      `INSERT INTO tab_checkpoints (spreadsheet_id, source_sheet_id, checkpoint_id) VALUES ($1, $2, $3)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET checkpoint_id = excluded.checkpoint_id`,
      [...at, checkpointId],
    );
    await this.#db.query('DELETE FROM baseline_redo WHERE spreadsheet_id = $1 AND source_sheet_id = $2', at);
  }

  /** Recorded in a new generation (unique across spreadsheets and time): the stamp. */
  async markVersion(spreadsheetId: string, version: string): Promise<string> {
    const row = await this.#one<{ generation: number }>(
      `WITH marked AS (
         UPDATE tab_baselines SET source_version = $2
         WHERE spreadsheet_id = $1 AND source_version IS DISTINCT FROM $2)
       INSERT INTO recorded_versions (spreadsheet_id, version, generation)
       VALUES ($1, $2, nextval('recording_generations'))
       ON CONFLICT (spreadsheet_id) DO UPDATE SET version = excluded.version, generation = excluded.generation
       RETURNING generation`,
      [spreadsheetId, version],
    );
    return String(row!.generation);
  }

  /** Delivered as the transaction commits: every instance reads again, workers claim, caches refresh. */
  async announce(spreadsheetId: string, version: string, done: Done): Promise<void> {
    const notify: [string, string][] = [[CHANNELS.recorded, recordedPayload(spreadsheetId, version)]];
    if (done.queued > 0) notify.push([CHANNELS.deliveries, '']);
    if (done.renamed) notify.push([CHANNELS.registry, '']);
    await this.#db.query(
      'SELECT pg_notify(n.channel, n.payload) FROM unnest($1::text[], $2::text[]) AS n(channel, payload)',
      [notify.map(([channel]) => channel), notify.map(([, payload]) => payload)],
    );
  }
}
