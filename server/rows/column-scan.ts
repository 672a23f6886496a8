/**
 * A column's rows read one by one: what a search does before the column has an index (match.ts). Each row's
 * cell becomes its text form (`stringForm`, or folded as search folds it) and is tested; no value is kept.
 * A few times cheaper than building the index (no hash table, no joined text), so a column searched once on a
 * snapshot, such as the first search after a write, answers sooner this way.
 */
import { STEP_MASK, type Steps } from '../lib/steps.ts';
import type { CellValue } from '../sources/source.ts';
import { foldText } from './collation.ts';

/** The string a search matches against: numbers via String(n), booleans true/false, empty as ''. */
export function stringForm(v: CellValue): string {
  if (v === null) return '';
  return typeof v === 'string' ? v : String(v);
}

/** The text form folded as `search` folds it; a number's or a boolean's text folds to itself. */
export function foldedForm(v: CellValue): string {
  return typeof v === 'string' ? foldText(v) : stringForm(v);
}

/** The rows (ascending) among `rowCount` whose cell of `col`, as `form` makes it text, passes `test`. */
export function* scanRows(
  rowCount: number,
  col: number,
  read: (row: number, col: number) => CellValue,
  form: (v: CellValue) => string,
  test: (text: string) => boolean,
): Steps<Uint32Array> {
  let rows = new Uint32Array(64);
  let count = 0;
  for (let r = 0; r < rowCount; r++) {
    if ((r & STEP_MASK) === STEP_MASK) yield;
    if (!test(form(read(r, col)))) continue;
    if (count === rows.length) {
      const grown = new Uint32Array(Math.min(rowCount, rows.length * 2));
      grown.set(rows);
      rows = grown;
    }
    rows[count++] = r;
  }
  return rows.subarray(0, count);
}
