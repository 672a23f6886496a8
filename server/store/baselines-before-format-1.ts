/**
 * Baselines as stored before format 1 (migration 11 converts them, once): a checkpoint of gzip V8 (or, older
 * still, gzip JSON) `{ name, header, typed }` plus the change log's entries after its `checkpoint_at`, whose
 * values are the feed's JSON (by header name). This module is the only reader of that form; restore never is.
 * A baseline that cannot be read is dropped: its tab's next look is a first sight (no notification).
 */
import { deserialize } from 'node:v8';
import { gunzipSync } from 'node:zlib';
import type Database from 'better-sqlite3';
import type { TabContent } from '../repositories/baselines.ts';
import { encodeCheckpoint } from '../repositories/rules/baseline-format.ts';
import type { CellValue } from '../sources/source.ts';

interface OldRow {
  spreadsheet_id: string;
  source_sheet_id: string;
  content: Buffer | null;
  checkpoint_at: number;
}

interface OldEntry {
  row_index: number;
  change: 'inserted' | 'updated' | 'deleted';
  updated_at: number;
  row_values: string | null;
}

/** Rewrites every stored checkpoint in format 1 with the entries after it applied; drops what cannot be read. */
export function convertBaselinesToFormat1(db: Database.Database): void {
  const rows = db
    .prepare<[], OldRow>(
      `SELECT b.spreadsheet_id, b.source_sheet_id, c.content, b.checkpoint_at
       FROM tab_baselines b LEFT JOIN tab_checkpoints c
         ON c.spreadsheet_id = b.spreadsheet_id AND c.source_sheet_id = b.source_sheet_id`,
    )
    .all();
  const entriesAfter = db.prepare<[string, string, number], OldEntry>(
    `SELECT row_index, change, updated_at, row_values FROM change_log
     WHERE spreadsheet_id = ? AND source_sheet_id = ? AND updated_at > ? ORDER BY seq`,
  );
  const put = db.prepare<[Buffer, string, string]>(
    'UPDATE tab_checkpoints SET content = ? WHERE spreadsheet_id = ? AND source_sheet_id = ?',
  );
  const drop = db.prepare<[string, string]>(
    'DELETE FROM tab_baselines WHERE spreadsheet_id = ? AND source_sheet_id = ?',
  );
  const dropContent = db.prepare<[string, string]>(
    'DELETE FROM tab_checkpoints WHERE spreadsheet_id = ? AND source_sheet_id = ?',
  );
  db.exec('UPDATE tab_baselines SET redo_entries = 0');
  for (const row of rows) {
    const ids = [row.spreadsheet_id, row.source_sheet_id] as const;
    const content = row.content ? readOld(row.content) : null;
    const entries = entriesAfter.all(...ids, row.checkpoint_at);
    const whole = content ? replayEntries(content, entries) : null;
    if (whole) put.run(Buffer.concat(encodeCheckpoint(whole)), ...ids);
    else {
      drop.run(...ids);
      dropContent.run(...ids);
    }
  }
}

function readOld(content: Buffer): TabContent | null {
  try {
    const bytes = gunzipSync(content);
    const value = (bytes[0] === 0xff ? deserialize(bytes) : JSON.parse(bytes.toString('utf8'))) as TabContent;
    const ok = typeof value?.name === 'string' && Array.isArray(value.header) && Array.isArray(value.typed);
    return ok ? { name: value.name, header: value.header, typed: value.typed } : null;
  } catch {
    return null;
  }
}

/** The checkpoint with the entries replayed, one recorded change (one instant) at a time; null if unreadable. */
function replayEntries(checkpoint: TabContent, entries: readonly OldEntry[]): TabContent | null {
  let rows = checkpoint.typed;
  try {
    for (let i = 0; i < entries.length; ) {
      let end = i;
      while (end < entries.length && entries[end]!.updated_at === entries[i]!.updated_at) end++;
      rows = replayChange(rows, entries.slice(i, end), checkpoint.header);
      i = end;
    }
  } catch {
    return null;
  }
  return { ...checkpoint, typed: rows };
}

/** A deletion's row_index counts in the rows before the change, an insertion's or update's in those after. */
function replayChange(old: CellValue[][], change: readonly OldEntry[], header: string[]): CellValue[][] {
  const out: CellValue[][] = [];
  let oi = 0;
  for (const entry of change) {
    const target = entry.row_index - 1;
    const copy = entry.change === 'deleted' ? target - oi : target - out.length;
    for (let n = 0; n < copy && oi < old.length; n++) out.push(old[oi++]!);
    if (entry.change !== 'inserted') oi++;
    if (entry.change === 'deleted') continue;
    const values = (entry.row_values ? JSON.parse(entry.row_values) : {}) as Record<string, CellValue>;
    out.push(header.map((name) => (Object.hasOwn(values, name) ? (values[name] ?? null) : null)));
  }
  while (oi < old.length) out.push(old[oi++]!);
  return out;
}
