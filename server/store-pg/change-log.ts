/**
 * The change log in PostgreSQL (repositories/change-log.ts), with store/change-log.ts's rules: the feed behind
 * `updated_since`, one row per changed row, and its end for the dashboard's live preview. Entries are appended
 * by the change recording's transaction (change-recording.ts) under one lock, so seq grows in commit order.
 */
import type { ChangedTab, ChangeEntry, ChangeFeedPage, ChangeLog } from '../repositories/change-log.ts';
import type { CellValue } from '../sources/source.ts';
import type { Pool, Queryable } from './pool.ts';

interface EntryRow {
  row_index: number;
  change: ChangeEntry['change'];
  updated_at: number;
  row_values: string | null;
}

/** The advisory lock every transaction appending to the log holds until it commits (hashtext's key space). */
const APPEND_LOCK = 'sheetport:change_log';

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

  /**
   * Appends one recorded change's entries in their order, inside the recording's transaction. The lock makes
   * appends one after another until each commits: a reader that saw seq n never later finds an entry below it.
   * Their instant is now, or 1 ms after the tab's previous change if that is not earlier (store/change-log.ts
   * says why), read under the spreadsheet's lock: every instance's changes of a tab get instants of their own.
   */
  async append(
    db: Queryable,
    spreadsheetId: string,
    sourceSheetId: string,
    entries: readonly Omit<ChangeEntry, 'updatedAt'>[],
    nowMs: number,
  ): Promise<void> {
    if (entries.length === 0) return;
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [APPEND_LOCK]);
    await db.query(
      `INSERT INTO change_log (spreadsheet_id, source_sheet_id, row_index, change, updated_at, row_values)
       SELECT $1, $2, e.row_index, e.change, i.instant, e.row_values
       FROM unnest($4::int[], $5::text[], $6::text[]) WITH ORDINALITY AS e(row_index, change, row_values, n),
         (SELECT GREATEST($3::bigint, COALESCE(MAX(updated_at), 0) + 1) AS instant FROM change_log
          WHERE spreadsheet_id = $1 AND source_sheet_id = $2) AS i
       ORDER BY e.n`,
      [
        spreadsheetId,
        sourceSheetId,
        nowMs,
        entries.map((e) => e.row_index),
        entries.map((e) => e.change),
        entries.map((e) => (e.values ? JSON.stringify(e.values) : null)),
      ],
    );
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
