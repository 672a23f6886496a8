/**
 * The baselines in PostgreSQL (repositories/baselines.ts), in SQLite's stored format (store/baseline-format.ts,
 * shared): per tab a row of counters (tab_baselines), a checkpoint of its content (tab_checkpoints) and the row
 * edits recorded after it (baseline_redo). Beside them, per spreadsheet, the version last recorded and the
 * generation of that recording (recorded_versions): how an instance tells that another one recorded meanwhile. The
 * writing methods run inside the change recording's transaction (change-recording.ts).
 */
import type { Baselines, ComparedTab, RowEdit, TabContent } from '../repositories/baselines.ts';
import { decodeCheckpointPaced, encodeCheckpoint, encodeRedo, withRedo } from '../store/baseline-format.ts';
import type { Pool, Queryable } from './pool.ts';

/** What a spreadsheet's baselines were last recorded at; a new generation for each recording (0: none yet). */
export interface RecordedVersion {
  version: string | null;
  generation: number;
}

export class PgBaselines implements Baselines {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Every baseline of a spreadsheet: its checkpoint with the row edits after it applied (`db`: a transaction). */
  async load(spreadsheetId: string, db: Queryable = this.#pool): Promise<Map<string, ComparedTab>> {
    const checkpoints = await db.query<{
      source_sheet_id: string;
      content: Buffer;
      source_version: string | null;
    }>(
      `SELECT b.source_sheet_id, c.content, b.source_version
       FROM tab_baselines b JOIN tab_checkpoints c
         ON c.spreadsheet_id = b.spreadsheet_id AND c.source_sheet_id = b.source_sheet_id
       WHERE b.spreadsheet_id = $1`,
      [spreadsheetId],
    );
    const redo = await db.query<{ source_sheet_id: string; content: Buffer }>(
      'SELECT source_sheet_id, content FROM baseline_redo WHERE spreadsheet_id = $1 ORDER BY seq',
      [spreadsheetId],
    );
    const out = new Map<string, ComparedTab>();
    for (const row of checkpoints.rows) {
      const content = await decodeCheckpointPaced(row.content);
      if (content) out.set(row.source_sheet_id, { ...content, sourceVersion: row.source_version });
    }
    return withRedo(out, redo.rows);
  }

  async recorded(db: Queryable, spreadsheetId: string): Promise<RecordedVersion> {
    const { rows } = await db.query<RecordedVersion>(
      'SELECT version, generation FROM recorded_versions WHERE spreadsheet_id = $1',
      [spreadsheetId],
    );
    return rows[0] ?? { version: null, generation: 0 };
  }

  /** How many row edits a tab's baseline holds after its checkpoint (0 without one). */
  async editsAfterCheckpoint(db: Queryable, spreadsheetId: string, sourceSheetId: string): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      'SELECT redo_entries AS n FROM tab_baselines WHERE spreadsheet_id = $1 AND source_sheet_id = $2',
      [spreadsheetId, sourceSheetId],
    );
    return rows[0]?.n ?? 0;
  }

  /** Store the whole tab as its checkpoint (the edits after the last one go); `encoded`: already encoded. */
  async checkpoint(
    db: Queryable,
    tab: { spreadsheetId: string; sourceSheetId: string; content: TabContent },
    nowMs: number,
    sourceVersion: string,
    encoded?: Buffer,
  ): Promise<void> {
    const { spreadsheetId, sourceSheetId, content } = tab;
    await db.query(
      `INSERT INTO tab_baselines (spreadsheet_id, source_sheet_id, name, updated_at, source_version, redo_entries)
       VALUES ($1, $2, $3, $4, $5, 0)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET
         name = excluded.name, updated_at = excluded.updated_at, source_version = excluded.source_version,
         redo_entries = 0`,
      [spreadsheetId, sourceSheetId, content.name, nowMs, sourceVersion],
    );
    await db.query(
      `INSERT INTO tab_checkpoints (spreadsheet_id, source_sheet_id, content) VALUES ($1, $2, $3)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET content = excluded.content`,
      [spreadsheetId, sourceSheetId, encoded ?? encodeCheckpoint(content)],
    );
    await db.query('DELETE FROM baseline_redo WHERE spreadsheet_id = $1 AND source_sheet_id = $2', [
      spreadsheetId,
      sourceSheetId,
    ]);
  }

  /** One recorded change's row edits, after the tab's checkpoint; returns how many edits it holds now. */
  async addEdits(
    db: Queryable,
    spreadsheetId: string,
    sourceSheetId: string,
    edits: readonly RowEdit[],
  ): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `WITH added AS (
         INSERT INTO baseline_redo (spreadsheet_id, source_sheet_id, content) VALUES ($2, $3, $4))
       UPDATE tab_baselines SET redo_entries = redo_entries + $1
       WHERE spreadsheet_id = $2 AND source_sheet_id = $3 RETURNING redo_entries AS n`,
      [edits.length, spreadsheetId, sourceSheetId, encodeRedo(edits)],
    );
    return rows[0]?.n ?? edits.length;
  }

  /**
   * Every baseline of the spreadsheet now matches `sourceVersion`, recorded in a new generation (unique across
   * spreadsheets and time); returns it.
   */
  async markVersion(db: Queryable, spreadsheetId: string, sourceVersion: string): Promise<number> {
    const { rows } = await db.query<{ generation: number }>(
      `WITH marked AS (
         UPDATE tab_baselines SET source_version = $2
         WHERE spreadsheet_id = $1 AND source_version IS DISTINCT FROM $2)
       INSERT INTO recorded_versions (spreadsheet_id, version, generation)
       VALUES ($1, $2, nextval('recording_generations'))
       ON CONFLICT (spreadsheet_id) DO UPDATE SET version = excluded.version, generation = excluded.generation
       RETURNING generation`,
      [spreadsheetId, sourceVersion],
    );
    return rows[0]!.generation;
  }
}
