import { gunzipSync, gzipSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import type { CellValue } from '../sources/source.ts';

/** A tab's content as last recorded. */
export interface Baseline {
  name: string;
  header: string[];
  typed: CellValue[][];
}

/**
 * The last content of each tab the service recorded, gzip JSON in SQLite. It outlives the process, so a change
 * made while SheetPort was not running (or in the instant between a file write and its record) is found by
 * comparing the file with it on the next start.
 */
export class BaselineStore {
  readonly #get: Database.Statement<[string], { source_sheet_id: string; content: Buffer }>;
  readonly #put: Database.Statement<[string, string, string, Buffer, number]>;

  constructor(db: Database.Database) {
    this.#get = db.prepare('SELECT source_sheet_id, content FROM tab_baselines WHERE spreadsheet_id = ?');
    this.#put = db.prepare(
      `INSERT INTO tab_baselines (spreadsheet_id, source_sheet_id, name, content, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET
         name = excluded.name, content = excluded.content, updated_at = excluded.updated_at`,
    );
  }

  /** Every recorded tab of a spreadsheet, by source sheet id. */
  load(spreadsheetId: string): Map<string, Baseline> {
    const out = new Map<string, Baseline>();
    for (const row of this.#get.all(spreadsheetId)) {
      out.set(row.source_sheet_id, JSON.parse(gunzipSync(row.content).toString('utf8')) as Baseline);
    }
    return out;
  }

  /** Call inside the transaction that records the tab's change. */
  save(spreadsheetId: string, sourceSheetId: string, baseline: Baseline, nowMs: number): void {
    const content = gzipSync(JSON.stringify(baseline), { level: 1 });
    this.#put.run(spreadsheetId, sourceSheetId, baseline.name, content, nowMs);
  }
}
