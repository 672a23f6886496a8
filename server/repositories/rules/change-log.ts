/**
 * The change log's reading side (change-log.ts), once for both databases: the feed's page (entries after an
 * instant in append order, their count and the newest instant), the log's end and the tabs past it. Entries are
 * appended by the change recording alone (change-recording.ts). Each database implements `ChangeLogStatements`
 * in its SQL (store/change-log.ts, store-pg/change-log.ts).
 */
import type { CellValue } from '../../sources/source.ts';
import type { ChangedTab, ChangeEntry, ChangeFeedPage, ChangeLog } from '../change-log.ts';
import type { Answer } from './transactional.ts';

/** The change_log table's row, as both databases return it (`row_values`: JSON text). */
export interface EntryRow {
  row_index: number;
  change: ChangeEntry['change'];
  updated_at: number;
  row_values: string | null;
}

/** Where a feed reads: a tab's entries after an instant. */
export interface FeedRange {
  spreadsheetId: string;
  sourceSheetId: string;
  sinceMs: number;
}

export interface ChangeLogStatements {
  /** In append order (seq). */
  entries(range: FeedRange, limit: number, offset: number): Answer<EntryRow[]>;
  summary(range: FeedRange): Answer<{ total: number; newest: number | null }>;
  /** The newest seq; 0 when the log is empty. */
  head(): Answer<number>;
  /** Each tab with an entry past `head`, once, by spreadsheet then tab. */
  tabsAfter(head: number): Answer<{ spreadsheet_id: string; source_sheet_id: string }[]>;
}

export class ChangeLogRepository implements ChangeLog {
  readonly #s: ChangeLogStatements;

  constructor(statements: ChangeLogStatements) {
    this.#s = statements;
  }

  async page(
    spreadsheetId: string,
    sourceSheetId: string,
    sinceMs: number,
    limit: number,
    offset: number,
  ): Promise<ChangeFeedPage> {
    const range = { spreadsheetId, sourceSheetId, sinceMs };
    const [rows, { total, newest }] = await Promise.all([
      this.#s.entries(range, limit, offset),
      this.#s.summary(range),
    ]);
    return { total, newest, data: rows.map(changeEntry) };
  }

  async head(): Promise<number> {
    return this.#s.head();
  }

  async tabsAfter(head: number): Promise<ChangedTab[]> {
    return (await this.#s.tabsAfter(head)).map((r) => ({
      spreadsheetId: r.spreadsheet_id,
      sourceSheetId: r.source_sheet_id,
    }));
  }
}

/** The one mapping of a change_log row to its entry. */
export function changeEntry(r: EntryRow): ChangeEntry {
  return {
    row_index: r.row_index,
    change: r.change,
    updatedAt: r.updated_at,
    values: r.row_values ? (JSON.parse(r.row_values) as Record<string, CellValue>) : null,
  };
}
