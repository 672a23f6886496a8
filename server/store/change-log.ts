import type Database from 'better-sqlite3';
import type { ChangedTab, ChangeEntry, ChangeFeedPage, ChangeLog } from '../repositories/change-log.ts';
import type { CellValue } from '../sources/source.ts';

interface EntryRow {
  row_index: number;
  change: ChangeEntry['change'];
  updated_at: number;
  row_values: string | null;
}

/**
 * The change log in SQLite (repositories/change-log.ts): the feed behind `GET /v1/spreadsheets/{id}/rows?
 * updated_since=`, one row per changed row, and its end for the dashboard's live preview (the newest seq, an
 * index lookup cheap enough to ask every second). Entries are appended inside the change recording's
 * transaction (recording.ts).
 */
export class SqliteChangeLog implements ChangeLog {
  readonly #page: Database.Statement<[string, string, number, number, number], EntryRow>;
  readonly #count: Database.Statement<[string, string, number], number>;
  readonly #newest: Database.Statement<[string, string, number], number | null>;
  readonly #head: Database.Statement<[], number>;
  readonly #tabsAfter: Database.Statement<[number], { spreadsheet_id: string; source_sheet_id: string }>;

  constructor(db: Database.Database) {
    this.#page = db.prepare(
      `SELECT row_index, change, updated_at, row_values FROM change_log
       WHERE spreadsheet_id = ? AND source_sheet_id = ? AND updated_at > ?
       ORDER BY seq LIMIT ? OFFSET ?`,
    );
    this.#count = db
      .prepare<[string, string, number], number>(
        'SELECT COUNT(*) FROM change_log WHERE spreadsheet_id = ? AND source_sheet_id = ? AND updated_at > ?',
      )
      .pluck();
    this.#newest = db
      .prepare<[string, string, number], number | null>(
        'SELECT MAX(updated_at) FROM change_log WHERE spreadsheet_id = ? AND source_sheet_id = ? AND updated_at > ?',
      )
      .pluck();
    this.#head = db.prepare<[], number>('SELECT IFNULL(MAX(seq), 0) FROM change_log').pluck();
    this.#tabsAfter = db.prepare(
      'SELECT DISTINCT spreadsheet_id, source_sheet_id FROM change_log WHERE seq > ? ORDER BY spreadsheet_id, source_sheet_id',
    );
  }

  async page(
    spreadsheetId: string,
    sourceSheetId: string,
    sinceMs: number,
    limit: number,
    offset: number,
  ): Promise<ChangeFeedPage> {
    const rows = this.#page.all(spreadsheetId, sourceSheetId, sinceMs, limit, offset);
    return {
      total: this.#count.get(spreadsheetId, sourceSheetId, sinceMs) ?? 0,
      newest: this.#newest.get(spreadsheetId, sourceSheetId, sinceMs) ?? null,
      data: rows.map(toEntry),
    };
  }

  async head(): Promise<number> {
    return this.#head.get() ?? 0;
  }

  async tabsAfter(head: number): Promise<ChangedTab[]> {
    return this.#tabsAfter
      .all(head)
      .map((r) => ({ spreadsheetId: r.spreadsheet_id, sourceSheetId: r.source_sheet_id }));
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
