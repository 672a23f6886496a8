/**
 * What a data dir has recorded, read straight from its SQLite file: the change log, the outbox and the stored
 * baselines (blobs as bytes), so a suite can say "nothing of this changed" or "exactly this was added".
 */
import type Database from 'better-sqlite3';

export interface RecordedState {
  changeLog: unknown[];
  deliveries: { event: string; payload: string }[];
  baselines: unknown[];
  /** Each checkpoint's parts in order, with any part no checkpoint links (tab null). */
  checkpoints: { source_sheet_id: string | null; part: number; content: Buffer }[];
  redo: { source_sheet_id: string; content: Buffer }[];
  webhooks: unknown[];
}

export function recordedState(db: Database.Database): RecordedState {
  const all = <T>(sql: string) => db.prepare(sql).all() as T[];
  return {
    changeLog: all('SELECT * FROM change_log ORDER BY seq'),
    deliveries: all('SELECT event, payload FROM deliveries ORDER BY created_at, rowid'),
    baselines: all('SELECT * FROM tab_baselines ORDER BY spreadsheet_id, source_sheet_id'),
    checkpoints: all(
      `SELECT c.source_sheet_id, p.part, p.content FROM checkpoint_parts p LEFT JOIN tab_checkpoints c USING (checkpoint_id)
       ORDER BY c.spreadsheet_id, c.source_sheet_id, p.checkpoint_id, p.part`,
    ),
    redo: all('SELECT source_sheet_id, content FROM baseline_redo ORDER BY seq'),
    webhooks: all('SELECT id, sheet_name, last_timestamp_ms FROM webhooks ORDER BY id'),
  };
}
