import { gunzipSync, gzipSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import type { CellValue } from '../sources/source.ts';

/** A tab's content as last recorded. */
export interface Baseline {
  name: string;
  header: string[];
  typed: CellValue[][];
}

/** A baseline as stored: with the source version it was read from (null when recorded before that was kept). */
export interface StoredBaseline extends Baseline {
  sourceVersion: string | null;
}

/**
 * The last content of each tab the service recorded, gzip JSON in SQLite. It outlives the process, so a change
 * made while SheetPort was not running (or in the instant between a file write and its record) is found by
 * comparing the file with it on the next start. Each row also keeps the source version its content matches.
 */
export class BaselineStore {
  readonly #get: Database.Statement<
    [string],
    { source_sheet_id: string; content: Buffer; source_version: string | null }
  >;
  readonly #put: Database.Statement<[string, string, string, Buffer, number, string]>;
  readonly #mark: Database.Statement<[string, string, string]>;
  readonly #recorded: Database.Statement<[string, string], number>;

  constructor(db: Database.Database) {
    this.#get = db.prepare(
      'SELECT source_sheet_id, content, source_version FROM tab_baselines WHERE spreadsheet_id = ?',
    );
    this.#put = db.prepare(
      `INSERT INTO tab_baselines (spreadsheet_id, source_sheet_id, name, content, updated_at, source_version)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET
         name = excluded.name, content = excluded.content, updated_at = excluded.updated_at,
         source_version = excluded.source_version`,
    );
    this.#recorded = db
      .prepare<[string, string], number>(
        'SELECT 1 FROM tab_baselines WHERE spreadsheet_id = ? AND source_version = ? LIMIT 1',
      )
      .pluck();
    this.#mark = db.prepare(
      `UPDATE tab_baselines SET source_version = ?
       WHERE spreadsheet_id = ? AND source_version IS NOT ?`,
    );
  }

  /** Every recorded tab of a spreadsheet, by source sheet id. */
  load(spreadsheetId: string): Map<string, StoredBaseline> {
    const out = new Map<string, StoredBaseline>();
    for (const row of this.#get.all(spreadsheetId)) {
      const content = JSON.parse(gunzipSync(row.content).toString('utf8')) as Baseline;
      out.set(row.source_sheet_id, { ...content, sourceVersion: row.source_version });
    }
    return out;
  }

  /** Whether this version of the spreadsheet was recorded already (by this process or another one). */
  hasVersion(spreadsheetId: string, sourceVersion: string): boolean {
    return this.#recorded.get(spreadsheetId, sourceVersion) !== undefined;
  }

  /** Call inside the transaction that records the tab's change; `sourceVersion` is what it was read from. */
  save(
    spreadsheetId: string,
    sourceSheetId: string,
    baseline: Baseline,
    nowMs: number,
    sourceVersion: string,
  ): void {
    const { name, header, typed } = baseline;
    const content = gzipSync(JSON.stringify({ name, header, typed }), { level: 1 });
    this.#put.run(spreadsheetId, sourceSheetId, name, content, nowMs, sourceVersion);
  }

  /**
   * Every baseline of the spreadsheet now matches `sourceVersion` (tabs a write left alone read the same as
   * before). Call inside the recording transaction, after the changed tabs were saved.
   */
  markVersion(spreadsheetId: string, sourceVersion: string): void {
    this.#mark.run(sourceVersion, spreadsheetId, sourceVersion);
  }
}
