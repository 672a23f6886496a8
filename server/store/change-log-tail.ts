import type Database from 'better-sqlite3';

/**
 * The end of the change log, for the dashboard's live preview: the newest entry's seq (an index lookup, cheap
 * enough to ask every second), and which tabs have entries after a given seq. Every recorded change, by this
 * process or another (the CLI), moves it; reading alone never does.
 */
export class ChangeLogTail {
  readonly #head: Database.Statement<[], number>;
  readonly #tabsAfter: Database.Statement<[number], { spreadsheet_id: string; source_sheet_id: string }>;

  constructor(db: Database.Database) {
    this.#head = db.prepare<[], number>('SELECT IFNULL(MAX(seq), 0) FROM change_log').pluck();
    this.#tabsAfter = db.prepare(
      'SELECT DISTINCT spreadsheet_id, source_sheet_id FROM change_log WHERE seq > ? ORDER BY spreadsheet_id, source_sheet_id',
    );
  }

  head(): number {
    return this.#head.get() ?? 0;
  }

  /** Each tab with a change after `seq`, once. */
  tabsAfter(seq: number): { spreadsheetId: string; sourceSheetId: string }[] {
    return this.#tabsAfter
      .all(seq)
      .map((r) => ({ spreadsheetId: r.spreadsheet_id, sourceSheetId: r.source_sheet_id }));
  }
}
