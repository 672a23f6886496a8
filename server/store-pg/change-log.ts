/**
 * The change log in PostgreSQL: the statements of repositories/rules/change-log.ts. Entries are appended by the
 * change recording's transaction (recording.ts) under one lock, so seq grows in commit order.
 */
import type { ChangeLogStatements, EntryRow, FeedRange } from '../repositories/rules/change-log.ts';
import type { Pool } from './pool.ts';

const IN_RANGE = 'spreadsheet_id = $1 AND source_sheet_id = $2 AND updated_at > $3';

export class PgChangeLogStatements implements ChangeLogStatements {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  async entries(r: FeedRange, limit: number, offset: number): Promise<EntryRow[]> {
    const { rows } = await this.#pool.query<EntryRow>(
      `SELECT row_index, change, updated_at, row_values FROM change_log WHERE ${IN_RANGE}
       ORDER BY seq LIMIT $4 OFFSET $5`,
      [r.spreadsheetId, r.sourceSheetId, r.sinceMs, limit, offset],
    );
    return rows;
  }

  async summary(r: FeedRange): Promise<{ total: number; newest: number | null }> {
    const { rows } = await this.#pool.query<{ total: number; newest: number | null }>(
      `SELECT COUNT(*) AS total, MAX(updated_at) AS newest FROM change_log WHERE ${IN_RANGE}`,
      [r.spreadsheetId, r.sourceSheetId, r.sinceMs],
    );
    return rows[0]!;
  }

  async head(): Promise<number> {
    const { rows } = await this.#pool.query<{ head: number }>(
      'SELECT COALESCE(MAX(seq), 0) AS head FROM change_log',
    );
    return rows[0]!.head;
  }

  async tabsAfter(head: number): Promise<{ spreadsheet_id: string; source_sheet_id: string }[]> {
    const { rows } = await this.#pool.query<{ spreadsheet_id: string; source_sheet_id: string }>(
      `SELECT DISTINCT spreadsheet_id, source_sheet_id FROM change_log WHERE seq > $1
       ORDER BY spreadsheet_id, source_sheet_id`,
      [head],
    );
    return rows;
  }
}
