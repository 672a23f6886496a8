import type Database from 'better-sqlite3';
import type { CellValue } from '../sources/source.ts';

export interface ChangeEntry {
  row_index: number;
  change: 'inserted' | 'updated' | 'deleted';
  /** Epoch ms; unique per recorded change of a tab and increasing (see `nextInstant`). */
  updatedAt: number;
  values: Record<string, CellValue> | null;
}

/** The change feed behind `GET /v1/spreadsheets/{id}/rows?updated_since=`: one row per changed row. */
export class ChangeLogStore {
  readonly #insert: Database.Statement<[string, string, number, string, number, string | null]>;
  readonly #last: Database.Statement<[string, string], number | null>;
  readonly #page: Database.Statement<
    [string, string, number, number, number],
    { row_index: number; change: ChangeEntry['change']; updated_at: number; row_values: string | null }
  >;
  readonly #count: Database.Statement<[string, string, number], number>;
  readonly #newest: Database.Statement<[string, string, number], number | null>;
  readonly #lastByTab = new Map<string, number>();
  readonly #since: Database.Statement<
    [string, string, number],
    { row_index: number; change: ChangeEntry['change']; updated_at: number; row_values: string | null }
  >;

  constructor(db: Database.Database) {
    this.#insert = db.prepare(
      'INSERT INTO change_log (spreadsheet_id, source_sheet_id, row_index, change, updated_at, row_values) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#last = db
      .prepare<[string, string], number | null>(
        'SELECT MAX(updated_at) FROM change_log WHERE spreadsheet_id = ? AND source_sheet_id = ?',
      )
      .pluck();
    this.#page = db.prepare(
      `SELECT row_index, change, updated_at, row_values FROM change_log
       WHERE spreadsheet_id = ? AND source_sheet_id = ? AND updated_at > ?
       ORDER BY seq LIMIT ? OFFSET ?`,
    );
    this.#since = db.prepare(
      `SELECT row_index, change, updated_at, row_values FROM change_log
       WHERE spreadsheet_id = ? AND source_sheet_id = ? AND updated_at > ? ORDER BY seq`,
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
  }

  /**
   * The instant to stamp a tab's next change with: now, or 1 ms after the tab's previous change if that is not
   * earlier. Every change of a tab thus has its own instant, and a client resuming with `updated_since` equal
   * to the last instant it saw can never skip a change recorded in the same millisecond.
   */
  nextInstant(spreadsheetId: string, sourceSheetId: string, nowMs: number): number {
    const instant = Math.max(nowMs, this.lastInstant(spreadsheetId, sourceSheetId) + 1);
    this.#lastByTab.set(`${spreadsheetId}\u0000${sourceSheetId}`, instant);
    return instant;
  }

  /** The instant of the tab's newest change (0 when it has none). */
  lastInstant(spreadsheetId: string, sourceSheetId: string): number {
    const key = `${spreadsheetId}\u0000${sourceSheetId}`;
    let last = this.#lastByTab.get(key);
    if (last === undefined) {
      last = this.#last.get(spreadsheetId, sourceSheetId) ?? 0;
      this.#lastByTab.set(key, last);
    }
    return last;
  }

  /** Every change of the tab after `afterMs`, oldest first (what a checkpoint does not hold yet). */
  since(spreadsheetId: string, sourceSheetId: string, afterMs: number): ChangeEntry[] {
    return this.#since.all(spreadsheetId, sourceSheetId, afterMs).map(toEntry);
  }

  /** Call inside the transaction that records the change. */
  append(spreadsheetId: string, sourceSheetId: string, entry: ChangeEntry): void {
    this.#insert.run(
      spreadsheetId,
      sourceSheetId,
      entry.row_index,
      entry.change,
      entry.updatedAt,
      entry.values ? JSON.stringify(entry.values) : null,
    );
  }

  /** Changes after `sinceMs`, oldest first; `newest` is the instant of the newest one (to resume from). */
  page(
    spreadsheetId: string,
    sourceSheetId: string,
    sinceMs: number,
    limit: number,
    offset: number,
  ): { total: number; newest: number | null; data: ChangeEntry[] } {
    const rows = this.#page.all(spreadsheetId, sourceSheetId, sinceMs, limit, offset);
    return {
      total: this.#count.get(spreadsheetId, sourceSheetId, sinceMs) ?? 0,
      newest: this.#newest.get(spreadsheetId, sourceSheetId, sinceMs) ?? null,
      data: rows.map(toEntry),
    };
  }
}

function toEntry(r: {
  row_index: number;
  change: ChangeEntry['change'];
  updated_at: number;
  row_values: string | null;
}): ChangeEntry {
  return {
    row_index: r.row_index,
    change: r.change,
    updatedAt: r.updated_at,
    values: r.row_values ? (JSON.parse(r.row_values) as Record<string, CellValue>) : null,
  };
}
