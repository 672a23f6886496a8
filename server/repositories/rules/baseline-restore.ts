/**
 * The baselines restored from what both databases store of them (baseline-format.ts): each tab's checkpoint with
 * the row edits recorded after it applied in order.
 *
 * A restart's first sight compares every tab with its baseline. When the file has not changed while the service
 * was stopped (the usual case), the baseline was stored from the very version read now: it is then checked
 * against the content read, as it inflates (`checkpointHolds`), instead of being decoded into rows of its own,
 * which at a million rows held 370 MB more for the seconds until the garbage collector took them back. A
 * checkpoint made from a read with the same identity as the read now (the same bytes, engine, limits and code:
 * sources/read-identity.ts) holds it without its rows being read at all: 4.5 s of the service's thread at a
 * million rows.
 */
import type { ComparedTab, CurrentContent } from '../baselines.ts';
import {
  checkpointHolds,
  checkpointNamed,
  decodeCheckpoint,
  decodeCheckpointPaced,
  decodeRedo,
  type Parts,
} from './baseline-format.ts';
import { applyEditsInPlace } from './row-edits.ts';

export type { CurrentContent } from '../baselines.ts';

/** The checkpoints with each tab's recorded changes applied in order; a tab with an unreadable one is left out. */
export function withRedo(
  out: Map<string, ComparedTab>,
  redo: readonly { source_sheet_id: string; content: Buffer }[],
): Map<string, ComparedTab> {
  for (const entry of redo) {
    const tab = out.get(entry.source_sheet_id);
    if (!tab) continue;
    const edits = decodeRedo(entry.content);
    // The checkpoint's rows are this load's own: edited in place.
    if (edits) tab.typed = applyEditsInPlace(tab.typed, edits);
    else out.delete(entry.source_sheet_id);
  }
  return out;
}

/** A stored checkpoint: its tab, the version it was read from and its blob's parts in order. */
export interface CheckpointRow {
  source_sheet_id: string;
  parts: Parts;
  source_version: string | null;
}

/** One stored part of a checkpoint, as both databases return it: ordered by tab, then by part. */
export interface CheckpointPartRow {
  source_sheet_id: string;
  source_version: string | null;
  content: Buffer;
}

/** The checkpoints the parts make, each tab's parts kept in the order they came. */
export function checkpointsOf(rows: readonly CheckpointPartRow[]): CheckpointRow[] {
  const out = new Map<string, { source_sheet_id: string; parts: Buffer[]; source_version: string | null }>();
  for (const { source_sheet_id, source_version, content } of rows) {
    const tab = out.get(source_sheet_id);
    if (tab) tab.parts.push(content);
    else out.set(source_sheet_id, { source_sheet_id, parts: [content], source_version });
  }
  return [...out.values()];
}

/** A stored redo entry (one recorded change's row edits), oldest first. */
export interface RedoRow {
  source_sheet_id: string;
  content: Buffer;
}

/**
 * Every baseline of a spreadsheet from what is stored of it: each checkpoint with the row edits after it
 * applied, one recorded change at a time. A tab whose checkpoint or redo is not in a readable format is left
 * out (a first sight).
 */
export function restoreBaselines(
  checkpoints: readonly CheckpointRow[],
  redo: readonly RedoRow[],
): Map<string, ComparedTab> {
  const out = new Map<string, ComparedTab>();
  for (const row of checkpoints) {
    const content = decodeCheckpoint(row.parts);
    if (content) out.set(row.source_sheet_id, { ...content, sourceVersion: row.source_version });
  }
  return withRedo(out, redo);
}

/**
 * A spreadsheet's stored checkpoints as a database reads them: each with its first part only (enough for its
 * first frame), or whole. At a million rows a checkpoint is 28 MB, a tenth of a second of the service's thread
 * to read back from SQLite, which a checkpoint named by the read now (its first part) does without.
 */
export interface StoredCheckpoints {
  heads(): Promise<readonly CheckpointPartRow[]>;
  whole(): Promise<readonly CheckpointPartRow[]>;
}

/** `restoreBaselines`, each checkpoint decoded a slice at a time (the service answers meanwhile). */
export async function restoreBaselinesPaced(
  stored: StoredCheckpoints,
  redo: readonly RedoRow[],
  current?: CurrentContent,
): Promise<Map<string, ComparedTab>> {
  const out = new Map<string, ComparedTab>();
  const edited = new Set(redo.map((r) => r.source_sheet_id));
  const unchanged = (row: CheckpointRow) => {
    const now = current?.tabs.get(row.source_sheet_id);
    const sameVersion = now !== undefined && row.source_version === current?.version;
    return sameVersion && !edited.has(row.source_sheet_id) ? now : undefined;
  };
  // First the checkpoints made from the very read of now, by their first frames alone.
  const heads = current ? checkpointsOf(await stored.heads()) : [];
  for (const row of heads) {
    const now = unchanged(row);
    if (now && (await checkpointNamed(row.parts, now)))
      out.set(row.source_sheet_id, { ...now, sourceVersion: row.source_version });
  }
  if (current && out.size === heads.length) return withRedo(out, redo);
  for (const row of checkpointsOf(await stored.whole())) {
    if (out.has(row.source_sheet_id)) continue;
    const now = unchanged(row);
    if (now && (await checkpointHolds(row.parts, now))) {
      // Stored from this very version and holding what was read now: the content read stands for it (the same
      // rows, so the plan has nothing to diff), and the stored rows are never decoded.
      out.set(row.source_sheet_id, { ...now, sourceVersion: row.source_version });
      continue;
    }
    const content = await decodeCheckpointPaced(row.parts);
    if (content) out.set(row.source_sheet_id, { ...content, sourceVersion: row.source_version });
  }
  return withRedo(out, redo);
}
