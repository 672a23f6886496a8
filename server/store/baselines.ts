/**
 * The baselines in SQLite (repositories/baselines.ts), read back in their stored format
 * (repositories/rules/baseline-format.ts): per tab a row of counters every recorded change updates
 * (tab_baselines), a checkpoint of its content written now and then (tab_checkpoints, which names its parts in
 * checkpoint_parts; SQLite rewrites a whole record on any update, so the counters are kept apart) and the row edits recorded after that checkpoint
 * (baseline_redo). The change recording writes them (recording.ts).
 */
import type Database from 'better-sqlite3';
import type { Baselines, ComparedTab } from '../repositories/baselines.ts';
import {
  type CheckpointPartRow,
  type CurrentContent,
  checkpointsOf,
  type RedoRow,
  restoreBaselines,
  restoreBaselinesPaced,
} from '../repositories/rules/baseline-restore.ts';

const CHECKPOINT_PARTS = `SELECT b.source_sheet_id, b.source_version, p.content
  FROM tab_baselines b JOIN tab_checkpoints c
    ON c.spreadsheet_id = b.spreadsheet_id AND c.source_sheet_id = b.source_sheet_id
  JOIN checkpoint_parts p ON p.checkpoint_id = c.checkpoint_id
  WHERE b.spreadsheet_id = ?`;

export class SqliteBaselines implements Baselines {
  readonly #checkpoints: Database.Statement<[string], CheckpointPartRow>;
  readonly #heads: Database.Statement<[string], CheckpointPartRow>;
  readonly #redo: Database.Statement<[string], RedoRow>;

  constructor(db: Database.Database) {
    this.#checkpoints = db.prepare(`${CHECKPOINT_PARTS} ORDER BY b.source_sheet_id, p.part`);
    this.#heads = db.prepare(`${CHECKPOINT_PARTS} AND p.part = 0 ORDER BY b.source_sheet_id`);
    this.#redo = db.prepare(
      'SELECT source_sheet_id, content FROM baseline_redo WHERE spreadsheet_id = ? ORDER BY seq',
    );
  }

  /** `loadNow`, each checkpoint decoded a slice at a time (the service answers meanwhile). */
  async load(spreadsheetId: string, current?: CurrentContent): Promise<Map<string, ComparedTab>> {
    const stored = {
      heads: async () => this.#heads.all(spreadsheetId),
      whole: async () => this.#checkpoints.all(spreadsheetId),
    };
    return restoreBaselinesPaced(stored, this.#redo.all(spreadsheetId), current);
  }

  /** Every baseline of the spreadsheet, decoded at once (inside a transaction, which must not pause). */
  loadNow(spreadsheetId: string): Map<string, ComparedTab> {
    return restoreBaselines(
      checkpointsOf(this.#checkpoints.all(spreadsheetId)),
      this.#redo.all(spreadsheetId),
    );
  }
}
