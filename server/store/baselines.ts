import { deserialize, serialize } from 'node:v8';
import { gunzipSync, gzipSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import type { CellValue } from '../sources/source.ts';

/** A tab's content as recorded. */
export interface Baseline {
  name: string;
  header: string[];
  typed: CellValue[][];
}

/**
 * A tab's last checkpoint as stored: its content as of `checkpointAt` (a change-log instant; the entries after
 * it complete the picture), the source version the recorded content matches (null when recorded before that
 * was kept), and how many change-log entries were recorded since the checkpoint.
 */
export interface Checkpoint extends Baseline {
  sourceVersion: string | null;
  checkpointAt: number;
  redoEntries: number;
}

interface Row {
  source_sheet_id: string;
  content: Buffer;
  source_version: string | null;
  checkpoint_at: number;
  redo_entries: number;
}

/** The first byte of V8's serialization format (its version tag); a JSON baseline starts with `{`. */
const V8_FORMAT = 0xff;

function encode(baseline: Baseline): Buffer {
  const { name, header, typed } = baseline;
  return gzipSync(serialize({ name, header, typed }), { level: 1 });
}

function decode(content: Buffer): Baseline {
  const bytes = gunzipSync(content);
  // Checkpoints written before V8's format was used are gzip JSON.
  if (bytes[0] === V8_FORMAT) return deserialize(bytes) as Baseline;
  return JSON.parse(bytes.toString('utf8')) as Baseline;
}

/**
 * What the service last recorded of each tab, in SQLite, so a change made while SheetPort was not running is
 * found on the next start by comparing the source with it. Kept as a checkpoint of the whole tab plus the change
 * log recorded since (see changes/baselines.ts, which puts the two together): a write stores only its changed
 * rows, and the whole tab is stored again only when the entries since the checkpoint grow many.
 */
export class BaselineStore {
  readonly #get: Database.Statement<[string], Row>;
  readonly #put: Database.Statement<[string, string, string, number, string, number]>;
  readonly #putContent: Database.Statement<[string, string, Buffer]>;
  readonly #mark: Database.Statement<[string, string, string]>;
  readonly #recorded: Database.Statement<[string, string], number>;
  readonly #addRedo: Database.Statement<[number, string, string]>;
  readonly #redoOf: Database.Statement<[string, string], number>;

  constructor(db: Database.Database) {
    // The content lives apart (migration 9): the small columns below change at every write, the content only
    // when a checkpoint is taken.
    this.#get = db.prepare(
      `SELECT b.source_sheet_id, c.content, b.source_version, b.checkpoint_at, b.redo_entries
       FROM tab_baselines b JOIN tab_checkpoints c
         ON c.spreadsheet_id = b.spreadsheet_id AND c.source_sheet_id = b.source_sheet_id
       WHERE b.spreadsheet_id = ?`,
    );
    this.#put = db.prepare(
      `INSERT INTO tab_baselines
         (spreadsheet_id, source_sheet_id, name, updated_at, source_version, checkpoint_at, redo_entries)
       VALUES (?, ?, ?, ?, ?, ?, 0)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET
         name = excluded.name, updated_at = excluded.updated_at,
         source_version = excluded.source_version, checkpoint_at = excluded.checkpoint_at, redo_entries = 0`,
    );
    this.#putContent = db.prepare(
      `INSERT INTO tab_checkpoints (spreadsheet_id, source_sheet_id, content) VALUES (?, ?, ?)
       ON CONFLICT (spreadsheet_id, source_sheet_id) DO UPDATE SET content = excluded.content`,
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
    this.#redoOf = db
      .prepare<[string, string], number>(
        'SELECT redo_entries FROM tab_baselines WHERE spreadsheet_id = ? AND source_sheet_id = ?',
      )
      .pluck();
    this.#addRedo = db.prepare(
      'UPDATE tab_baselines SET redo_entries = redo_entries + ? WHERE spreadsheet_id = ? AND source_sheet_id = ?',
    );
  }

  /** Every tab's last checkpoint, by source sheet id. */
  checkpoints(spreadsheetId: string): Map<string, Checkpoint> {
    const out = new Map<string, Checkpoint>();
    for (const row of this.#get.all(spreadsheetId)) {
      out.set(row.source_sheet_id, {
        ...decode(row.content),
        sourceVersion: row.source_version,
        checkpointAt: row.checkpoint_at,
        redoEntries: row.redo_entries,
      });
    }
    return out;
  }

  /** Whether this version of the spreadsheet was recorded already (by this process or another one). */
  hasVersion(spreadsheetId: string, sourceVersion: string): boolean {
    return this.#recorded.get(spreadsheetId, sourceVersion) !== undefined;
  }

  /**
   * Store the whole tab as of change-log instant `checkpointAt` (entries after it are not in it). Call inside
   * the transaction that records the tab's change; `sourceVersion` is what the content was read from.
   */
  checkpoint(
    spreadsheetId: string,
    sourceSheetId: string,
    baseline: Baseline,
    nowMs: number,
    sourceVersion: string,
    checkpointAt: number,
  ): void {
    this.#put.run(spreadsheetId, sourceSheetId, baseline.name, nowMs, sourceVersion, checkpointAt);
    this.#putContent.run(spreadsheetId, sourceSheetId, encode(baseline));
  }

  /**
   * `entries` more change-log entries were recorded after the tab's checkpoint (same transaction); returns how
   * many there are now.
   */
  addRedoEntries(spreadsheetId: string, sourceSheetId: string, entries: number): number {
    this.#addRedo.run(entries, spreadsheetId, sourceSheetId);
    return this.#redoOf.get(spreadsheetId, sourceSheetId) ?? entries;
  }

  /**
   * Every baseline of the spreadsheet now matches `sourceVersion` (tabs a write left alone read the same as
   * before). Call inside the recording transaction, after the changed tabs were recorded.
   */
  markVersion(spreadsheetId: string, sourceVersion: string): void {
    this.#mark.run(sourceVersion, spreadsheetId, sourceVersion);
  }
}
