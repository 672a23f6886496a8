/**
 * Edits of a tab's rows for property tests (the row diff, baselines): an edit script applied to old rows gives the
 * new rows a re-read tab would have.
 */
import type { CellValue } from '../../server/sources/source.ts';

type Row = CellValue[];

export type RowEdit =
  | { t: 'insert'; at: number; row: Row }
  | { t: 'delete'; at: number }
  | { t: 'update'; at: number; row: Row }
  | { t: 'move'; at: number; to: number }
  | { t: 'duplicate'; at: number; to: number }
  | { t: 'cell'; at: number; col: number; value: CellValue };

/** The new tab: the old one with the edits applied in turn (fresh row arrays, like a re-read tab). */
export function editRows(old: readonly Row[], edits: readonly RowEdit[]): Row[] {
  const out = old.map((r) => [...r]);
  for (const o of edits) {
    const n = out.length;
    if (o.t === 'insert') out.splice(o.at % (n + 1), 0, [...o.row]);
    else if (n === 0) continue;
    else if (o.t === 'delete') out.splice(o.at % n, 1);
    else if (o.t === 'update') out[o.at % n] = [...o.row];
    else if (o.t === 'move') {
      const [moved] = out.splice(o.at % n, 1);
      out.splice(o.to % n, 0, moved!);
    } else if (o.t === 'duplicate') out.splice(o.to % (n + 1), 0, [...out[o.at % n]!]);
    else {
      const r = out[o.at % n]!;
      while (r.length <= o.col) r.push(null);
      r[o.col] = o.value;
    }
  }
  return out;
}
