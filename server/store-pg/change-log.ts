/**
 * The change log in PostgreSQL (repositories/change-log.ts), with store/change-log.ts's rules: the feed behind
 * `updated_since`, one row per changed row, and its end for the dashboard's live preview. Entries are appended
 * by the change recording's transaction (recording.ts) under one lock, so seq grows in commit order.
 */
import type { ChangedTab, ChangeEntry, ChangeFeedPage, ChangeLog } from '../repositories/change-log.ts';
import type { CellValue } from '../sources/source.ts';
import type { Pool } from './pool.ts';

interface EntryRow {
  row_index: number;
  change: ChangeEntry['change'];
  updated_at: number;
  row_values: string | null;
}

export class PgChangeLog implements ChangeLog {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  async page(
    spreadsheetId: string,
    sourceSheetId: string,
    sinceMs: number,
    limit: number,
    offset: number,
  ): Promise<ChangeFeedPage> {
    const tab = [spreadsheetId, sourceSheetId, sinceMs];
    const where = 'spreadsheet_id = $1 AND source_sheet_id = $2 AND updated_at > $3';
    const [rows, summary] = await Promise.all([
      this.#pool.query<EntryRow>(
        `SELECT row_index, change, updated_at, row_values FROM change_log WHERE ${where}
         ORDER BY seq LIMIT $4 OFFSET $5`,
        [...tab, limit, offset],
      ),
      this.#pool.query<{ total: number; newest: number | null }>(
        `SELECT COUNT(*) AS total, MAX(updated_at) AS newest FROM change_log WHERE ${where}`,
        tab,
      ),
    ]);
    const { total, newest } = summary.rows[0]!;
    return { total, newest, data: rows.rows.map(toEntry) };
  }

  async head(): Promise<number> {
    const { rows } = await this.#pool.query<{ head: number }>(
      'SELECT COALESCE(MAX(seq), 0) AS head FROM change_log',
    );
    return rows[0]!.head;
  }

  async tabsAfter(head: number): Promise<ChangedTab[]> {
    const { rows } = await this.#pool.query<{ spreadsheet_id: string; source_sheet_id: string }>(
      `SELECT DISTINCT spreadsheet_id, source_sheet_id FROM change_log WHERE seq > $1
       ORDER BY spreadsheet_id, source_sheet_id`,
      [head],
    );
    return rows.map((r) => ({ spreadsheetId: r.spreadsheet_id, sourceSheetId: r.source_sheet_id }));
  }
}

function toEntry(r: EntryRow): ChangeEntry {
  return {
    row_index: r.row_index,
    change: r.change,
    updatedAt: r.updated_at,
    values: r.row_values ? (JSON.parse(r.row_values) as Record<string, CellValue>) : null,
  };
}
