/**
 * The diff's test oracle (tests and the diff benchmark): replaying a diff on the old rows must give the new rows.
 * The service itself never applies a diff: a Spreadsheet takes whole snapshots.
 */
import { type RowChange, rowsEqual } from '../../server/diff/row-diff.ts';
import type { CellValue } from '../../server/sources/source.ts';

/**
 * Applies a diff to the old rows, giving the new rows (equal to them under `rowsEqual`: rows the diff left alone
 * keep the old tab's arrays). Checks the diff as it goes: changes out of the documented order, indices out of range
 * or a `before` that does not match the old row throw an Error.
 */
export function applyDiff(oldRows: readonly CellValue[][], changes: readonly RowChange[]): CellValue[][] {
  const out: CellValue[][] = [];
  let oi = 0;
  for (const [n, change] of changes.entries()) {
    const target = change.row_index - 1;
    if (!Number.isInteger(target))
      throw new Error(`applyDiff: change ${n} has row_index ${change.row_index}`);
    // Copy the unchanged rows up to the change: to its old index (deleted) or to its new index (others).
    const copy = change.kind === 'deleted' ? target - oi : target - out.length;
    if (copy < 0 || oi + copy > oldRows.length) {
      throw new Error(
        `applyDiff: change ${n} (${change.kind} row ${change.row_index}) is out of order or range`,
      );
    }
    for (let t = 0; t < copy; t++) out.push(oldRows[oi++]!);
    if (change.kind === 'inserted') {
      if (change.after === null || change.before !== null)
        throw new Error(`applyDiff: change ${n} malformed`);
      out.push(change.after);
      continue;
    }
    const old = oldRows[oi];
    if (old === undefined) throw new Error(`applyDiff: change ${n} (${change.kind}) is past the old rows`);
    if (change.before === null || !rowsEqual(change.before, old)) {
      throw new Error(
        `applyDiff: change ${n} (${change.kind} row ${change.row_index}) does not match the old row`,
      );
    }
    oi++;
    if (change.kind === 'updated') {
      if (change.after === null) throw new Error(`applyDiff: change ${n} malformed`);
      out.push(change.after);
    } else if (change.after !== null) throw new Error(`applyDiff: change ${n} malformed`);
  }
  while (oi < oldRows.length) out.push(oldRows[oi++]!);
  return out;
}
