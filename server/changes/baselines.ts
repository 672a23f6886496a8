/**
 * A tab's recorded content, put together from its last checkpoint and the change-log entries recorded since:
 * the entries of one recorded change (one instant) are one row diff (changes/diff/row-diff.ts), replayed on the rows
 * before it. A write thus costs the rows it changed, not a copy of the whole tab.
 */
import type { CellValue } from '../sources/source.ts';
import type { Baseline, BaselineStore } from '../store/baselines.ts';
import type { ChangeEntry, ChangeLogStore } from '../store/change-log.ts';

/** A tab's recorded content with what the recorder needs to know about how it is stored. */
export interface RecordedTab extends Baseline {
  /** The source version the content matches (null when recorded before versions were kept). */
  sourceVersion: string | null;
  /** Change-log entries after the checkpoint: when they grow many, the next record stores a new checkpoint. */
  redoEntries: number;
}

/** Every recorded tab of a spreadsheet, by source sheet id. */
export function loadRecordedTabs(
  spreadsheetId: string,
  baselines: BaselineStore,
  changeLog: ChangeLogStore,
): Map<string, RecordedTab> {
  const out = new Map<string, RecordedTab>();
  for (const [sheetId, checkpoint] of baselines.checkpoints(spreadsheetId)) {
    const entries = changeLog.since(spreadsheetId, sheetId, checkpoint.checkpointAt);
    out.set(sheetId, {
      ...withEntries(checkpoint, entries),
      sourceVersion: checkpoint.sourceVersion,
      redoEntries: checkpoint.redoEntries,
    });
  }
  return out;
}

/**
 * The checkpoint's rows with `entries` replayed, one recorded change (one instant) at a time. Within a change,
 * as the diff orders them: a deletion's row_index counts in the rows before the change, an insertion's or an
 * update's in the rows after it, and each change comes at or after the one before it.
 */
export function withEntries(checkpoint: Baseline, entries: readonly ChangeEntry[]): Baseline {
  let rows = checkpoint.typed;
  const header = checkpoint.header;
  for (let i = 0; i < entries.length; ) {
    let end = i;
    while (end < entries.length && entries[end]!.updatedAt === entries[i]!.updatedAt) end++;
    rows = replay(rows, entries.slice(i, end), header);
    i = end;
  }
  return { name: checkpoint.name, header, typed: rows };
}

function replay(
  old: readonly CellValue[][],
  changes: readonly ChangeEntry[],
  header: readonly string[],
): CellValue[][] {
  const out: CellValue[][] = [];
  let oi = 0;
  for (const change of changes) {
    const target = change.row_index - 1;
    // Unchanged rows up to the change: to its old index (a deletion) or to its new index (the others).
    const copy = change.change === 'deleted' ? target - oi : target - out.length;
    for (let n = 0; n < copy && oi < old.length; n++) out.push(old[oi++]!);
    if (change.change !== 'inserted') oi++;
    if (change.change !== 'deleted') out.push(positional(change.values, header));
  }
  while (oi < old.length) out.push(old[oi++]!);
  return out;
}

/** A logged row (values by header name) as the row array the diff compares. */
function positional(values: Record<string, CellValue> | null, header: readonly string[]): CellValue[] {
  return header.map((name) => (values && Object.hasOwn(values, name) ? (values[name] ?? null) : null));
}

/** Whether a tab of `rows` rows with `redoEntries` entries after its checkpoint should get a new one now. */
export function wantsCheckpoint(redoEntries: number, rows: number): boolean {
  return redoEntries > Math.max(1_000, rows / 4);
}
