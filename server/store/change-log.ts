/**
 * The change log in SQLite: the statements of repositories/rules/change-log.ts, the feed behind
 * `updated_since` and the log's end for the dashboard's live preview (the newest seq, an index lookup cheap
 * enough to ask every second). Entries are appended inside the change recording's transaction (recording.ts).
 */
import type Database from 'better-sqlite3';
import type { ChangeLogStatements, EntryRow, FeedRange } from '../repositories/rules/change-log.ts';

type Range = [spreadsheetId: string, sourceSheetId: string, sinceMs: number];
const IN_RANGE = 'spreadsheet_id = ? AND source_sheet_id = ? AND updated_at > ?';

export class SqliteChangeLogStatements implements ChangeLogStatements {
  readonly #entries: Database.Statement<[...Range, number, number], EntryRow>;
  readonly #summary: Database.Statement<Range, { total: number; newest: number | null }>;
  readonly #head: Database.Statement<[], number>;
  readonly #tabsAfter: Database.Statement<[number], { spreadsheet_id: string; source_sheet_id: string }>;

  constructor(db: Database.Database) {
    this.#entries = db.prepare(
      `SELECT row_index, change, updated_at, row_values FROM change_log WHERE ${IN_RANGE} ORDER BY seq LIMIT ? OFFSET ?`,
    );
    this.#summary = db.prepare(
      `SELECT COUNT(*) AS total, MAX(updated_at) AS newest FROM change_log WHERE ${IN_RANGE}`,
    );
    this.#head = db.prepare<[], number>('SELECT IFNULL(MAX(seq), 0) FROM change_log').pluck();
    this.#tabsAfter = db.prepare(
      'SELECT DISTINCT spreadsheet_id, source_sheet_id FROM change_log WHERE seq > ? ORDER BY spreadsheet_id, source_sheet_id',
    );
  }

  entries(r: FeedRange, limit: number, offset: number): EntryRow[] {
    return this.#entries.all(r.spreadsheetId, r.sourceSheetId, r.sinceMs, limit, offset);
  }

  summary(r: FeedRange): { total: number; newest: number | null } {
    return this.#summary.get(r.spreadsheetId, r.sourceSheetId, r.sinceMs) ?? { total: 0, newest: null };
  }

  head(): number {
    return this.#head.get() ?? 0;
  }

  tabsAfter(head: number): { spreadsheet_id: string; source_sheet_id: string }[] {
    return this.#tabsAfter.all(head);
  }
}
