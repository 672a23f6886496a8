/**
 * A baseline's row edits applied to its rows (baseline-format.ts holds how they are stored): one recorded
 * change's edits at a time, in the row diff's order, onto the checkpoint's rows or the rows of the last change.
 */
import type { CellValue } from '../../sources/source.ts';
import type { RowEdit } from '../baselines.ts';

/**
 * The rows after one recorded change's edits. Unchanged rows are copied up to each edit: to its old index (a
 * deletion) or to its new index (the others); each edit comes at or after the one before it.
 */
export function applyEdits(old: readonly CellValue[][], edits: readonly RowEdit[]): CellValue[][] {
  const out: CellValue[][] = [];
  let oi = 0;
  for (const edit of edits) {
    const target = edit.row - 1;
    const copy = edit.change === 'deleted' ? target - oi : target - out.length;
    for (let n = 0; n < copy && oi < old.length; n++) out.push(old[oi++]!);
    if (edit.change !== 'inserted') oi++;
    if (edit.cells) out.push(edit.cells);
  }
  while (oi < old.length) out.push(old[oi++]!);
  return out;
}

/**
 * `applyEdits` on rows the caller owns, changing them in place: a few edits to a large tab move only what they
 * must (an append pushes one row), where copying the tab for each recorded change made restoring a baseline of a
 * million rows with many changes after its checkpoint take minutes.
 */
export function applyEditsInPlace(rows: CellValue[][], edits: readonly RowEdit[]): CellValue[][] {
  if (edits.length * 16 > rows.length) return applyEdits(rows, edits);
  let shift = 0; // insertions minus deletions so far: an old index's place now
  for (const edit of edits) {
    if (edit.change === 'deleted') {
      rows.splice(edit.row - 1 + shift, 1);
      shift--;
    } else if (edit.change === 'inserted') {
      rows.splice(edit.row - 1, 0, edit.cells as CellValue[]);
      shift++;
    } else rows[edit.row - 1] = edit.cells as CellValue[];
  }
  return rows;
}
