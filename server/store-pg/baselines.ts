/**
 * The baselines in PostgreSQL (repositories/baselines.ts), read back in their stored format, the same as
 * SQLite's (repositories/rules/baseline-format.ts, baseline-restore.ts): per tab a row of counters (tab_baselines), a checkpoint of
 * its content (tab_checkpoints, its parts in checkpoint_parts) and the row edits recorded after it (baseline_redo). The change recording writes
 * them (recording.ts).
 */
import type { Baselines, ComparedTab } from '../repositories/baselines.ts';
import {
  type CheckpointPartRow,
  type CurrentContent,
  type RedoRow,
  restoreBaselinesPaced,
} from '../repositories/rules/baseline-restore.ts';
import type { Queryable } from './pool.ts';

export class PgBaselines implements Baselines {
  readonly #db: Queryable;

  /** `db`: the pool, or a transaction's client. */
  constructor(db: Queryable) {
    this.#db = db;
  }

  async load(spreadsheetId: string, current?: CurrentContent): Promise<Map<string, ComparedTab>> {
    const parts = async (which: string) =>
      (
        await this.#db.query<CheckpointPartRow>(
          `SELECT b.source_sheet_id, b.source_version, p.content
           FROM tab_baselines b JOIN tab_checkpoints c
             ON c.spreadsheet_id = b.spreadsheet_id AND c.source_sheet_id = b.source_sheet_id
           JOIN checkpoint_parts p ON p.checkpoint_id = c.checkpoint_id
           WHERE b.spreadsheet_id = $1 ${which} ORDER BY b.source_sheet_id, p.part`,
          [spreadsheetId],
        )
      ).rows;
    const redo = await this.#db.query<RedoRow>(
      'SELECT source_sheet_id, content FROM baseline_redo WHERE spreadsheet_id = $1 ORDER BY seq',
      [spreadsheetId],
    );
    const stored = { heads: () => parts('AND p.part = 0'), whole: () => parts('') };
    return restoreBaselinesPaced(stored, redo.rows, current);
  }
}
