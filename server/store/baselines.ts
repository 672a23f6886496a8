import type Database from 'better-sqlite3';
import type { Baselines, ComparedTab, RowEdit, TabContent } from '../repositories/baselines.ts';
import {
  decodeCheckpoint,
  decodeCheckpointPaced,
  encodeCheckpoint,
  encodeRedo,
  withRedo,
} from './baseline-format.ts';

interface CheckpointRow {
  source_sheet_id: string;
  content: Buffer;
  source_version: string | null;
}

/**
 * The baselines in SQLite (repositories/baselines.ts), in their own stored format (baseline-format.ts): per tab a
 * row of counters every recorded change updates (tab_baselines), a checkpoint of its content written now and
 * then (tab_checkpoints; SQLite rewrites a whole record on any update, so the two are kept apart) and the row
 * edits recorded after that checkpoint (baseline_redo): a write stores only the rows it changed. The writing
 * methods are called inside the change recording's transaction (change-recording.ts).
 */
export class SqliteBaselines implements Baselines {
  readonly #checkpoints: Database.Statement<[string], CheckpointRow>;
  readonly #redo: Database.Statement<[string], { source_sheet_id: string; content: Buffer }>;
  readonly #put: Database.Statement<[string, string, string, number, string]>;
  readonly #putContent: Database.Statement<[string, string, Buffer]>;
  readonly #dropRedo: Database.Statement<[string, string]>;
  readonly #addRedo: Database.Statement<[string, string, Buffer]>;
  readonly #countRedo: Database.Statement<[number, string, string], number>;
  readonly #recorded: Database.Statement<[string, string], number>;
  readonly #mark: Database.Statement<[string, string, string]>;
  readonly #stamp: Database.Statement<[string], string>;
  readonly #editCount: Database.Statement<[string, string], number>;

  constructor(db: Database.Database) {
    this.#checkpoints = db.prepare(
      `SELECT b.source_sheet_id, c.content, b.source_version
       FROM tab_baselines b JOIN tab_checkpoints c
         ON c.spreadsheet_id = b.spreadsheet_id AND c.source_sheet_id = b.source_sheet_id
       WHERE b.spreadsheet_id = ?`,
    );
    this.#redo = db.prepare(
      'SELECT source_sheet_id, content FROM baseline_redo WHERE spreadsheet_id = ? ORDER BY seq',
    );
    this.#put = db.prepare(
      `INSERT INTO tab_baselines (spreadsheet_id, source_sheet_id, name, updated_at, source_version, redo_entries)
       VALUES (?, ?, ?, ?, ?, 0)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET
         name = excluded.name, updated_at = excluded.updated_at, source_version = excluded.source_version,
         redo_entries = 0`,
    );
    this.#putContent = db.prepare(
      `INSERT INTO tab_checkpoints (spreadsheet_id, source_sheet_id, content) VALUES (?, ?, ?)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET content = excluded.content`,
    );
    this.#dropRedo = db.prepare('DELETE FROM baseline_redo WHERE spreadsheet_id = ? AND source_sheet_id = ?');
    this.#addRedo = db.prepare(
      'INSERT INTO baseline_redo (spreadsheet_id, source_sheet_id, content) VALUES (?, ?, ?)',
    );
    this.#countRedo = db
      .prepare<[number, string, string], number>(
        `UPDATE tab_baselines SET redo_entries = redo_entries + ?
         WHERE spreadsheet_id = ? AND source_sheet_id = ? RETURNING redo_entries`,
      )
      .pluck();
    this.#recorded = db
      .prepare<[string, string], number>(
        'SELECT 1 FROM tab_baselines WHERE spreadsheet_id = ? AND source_version = ? LIMIT 1',
      )
      .pluck();
    this.#mark = db.prepare(
      'UPDATE tab_baselines SET source_version = ? WHERE spreadsheet_id = ? AND source_version IS NOT ?',
    );
    this.#stamp = db
      .prepare<[string], string>(
        `SELECT group_concat(source_sheet_id || ':' || IFNULL(source_version, '') || ':' || redo_entries || ':' ||
           updated_at, ',') FROM (SELECT * FROM tab_baselines WHERE spreadsheet_id = ? ORDER BY source_sheet_id)`,
      )
      .pluck();
    this.#editCount = db
      .prepare<[string, string], number>(
        'SELECT redo_entries FROM tab_baselines WHERE spreadsheet_id = ? AND source_sheet_id = ?',
      )
      .pluck();
  }

  /** `loadNow`, each checkpoint decoded a slice at a time (the service answers meanwhile). */
  async load(spreadsheetId: string): Promise<Map<string, ComparedTab>> {
    const checkpoints = this.#checkpoints.all(spreadsheetId);
    const redo = this.#redo.all(spreadsheetId);
    const out = new Map<string, ComparedTab>();
    for (const row of checkpoints) {
      const content = await decodeCheckpointPaced(row.content);
      if (content) out.set(row.source_sheet_id, { ...content, sourceVersion: row.source_version });
    }
    return withRedo(out, redo);
  }

  /**
   * Every baseline of the spreadsheet: its checkpoint with the row edits after it applied, one recorded change
   * at a time. A tab whose checkpoint or redo is not in a readable format is left out (a first sight).
   */
  loadNow(spreadsheetId: string): Map<string, ComparedTab> {
    const out = new Map<string, ComparedTab>();
    for (const row of this.#checkpoints.all(spreadsheetId)) {
      const content = decodeCheckpoint(row.content);
      if (content) out.set(row.source_sheet_id, { ...content, sourceVersion: row.source_version });
    }
    return withRedo(out, this.#redo.all(spreadsheetId));
  }

  /**
   * What the stored baselines of a spreadsheet are at: it changes whenever anything is recorded for it (a
   * version marked, a redo added, a checkpoint stored), by this process or another one.
   */
  stamp(spreadsheetId: string): string {
    return this.#stamp.get(spreadsheetId) ?? '';
  }

  /** How many row edits a tab's baseline holds after its checkpoint (0 without one). */
  editsAfterCheckpoint(spreadsheetId: string, sourceSheetId: string): number {
    return this.#editCount.get(spreadsheetId, sourceSheetId) ?? 0;
  }

  /** Whether this version of the spreadsheet was recorded already (by this process or another one). */
  hasVersion(spreadsheetId: string, sourceVersion: string): boolean {
    return this.#recorded.get(spreadsheetId, sourceVersion) !== undefined;
  }

  /**
   * Store the whole tab as its baseline's checkpoint (the edits stored after the last one go); `encoded` is the
   * content already encoded (baseline-format.ts `encodeCheckpointPaced`), else it is encoded here.
   */
  checkpoint(
    spreadsheetId: string,
    sourceSheetId: string,
    content: TabContent,
    nowMs: number,
    sourceVersion: string,
    encoded?: Buffer,
  ): void {
    this.#put.run(spreadsheetId, sourceSheetId, content.name, nowMs, sourceVersion);
    this.#putContent.run(spreadsheetId, sourceSheetId, encoded ?? encodeCheckpoint(content));
    this.#dropRedo.run(spreadsheetId, sourceSheetId);
  }

  /** One recorded change's row edits, after the tab's checkpoint; returns how many edits it holds now. */
  addEdits(spreadsheetId: string, sourceSheetId: string, edits: readonly RowEdit[]): number {
    this.#addRedo.run(spreadsheetId, sourceSheetId, encodeRedo(edits));
    return this.#countRedo.get(edits.length, spreadsheetId, sourceSheetId) ?? edits.length;
  }

  /**
   * Every baseline of the spreadsheet now matches `sourceVersion` (tabs a write left alone read the same as
   * before); called after the changed tabs were recorded.
   */
  markVersion(spreadsheetId: string, sourceVersion: string): void {
    this.#mark.run(sourceVersion, spreadsheetId, sourceVersion);
  }
}
