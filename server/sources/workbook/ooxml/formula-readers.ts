/**
 * Which formulas of a tab read which rows, per tab they read: what the recalculation after a write follows, from
 * the rows the write changed to the formulas reading them and on from those formulas' rows (recalculation.ts).
 * Each formula's row spans go into an interval pool per tab read (lib/interval-pool.ts), which hands each one
 * over once: following a chain of 30,000 running balances (`=B2+A3`) looked every formula over once per link,
 * about 60 s of the service's thread for one changed cell. Made once per index of formulas and kept with it, as
 * its bounds are (formula-index.ts).
 */

import { IntervalPool } from '../../../lib/interval-pool.ts';
import { lowerBound } from '../../../lib/lower-bound.ts';
import { EXCEL_MAX_ROWS } from '../excel-grid.ts';
import type { Precedents } from '../formulas/formula-text.ts';
import type { FormulaIndex, IndexedFormula } from './formula-index.ts';

export interface FormulaReaders {
  /** Per tab read (its lower-cased name): the row spans each formula reads there, owned by its place in `cells`. */
  byTab: Map<string, IntervalPool>;
  /** Formulas whose inputs their text cannot show ('always'): computed again after every write. */
  always: readonly number[];
  /** Formulas a delete changes without changing what they read: a reference cut to #REF!, or ROW. */
  readsPlaces: readonly number[];
}

interface Spans {
  starts: number[];
  ends: number[];
  owners: number[];
}

const made = new WeakMap<FormulaIndex, FormulaReaders>();

/** What a delete changes the result of without changing what it reads. */
const READS_PLACES = /#REF!|\bROW\s*\(/i;

/** Whether the index's readers are made (and so the first write to use them finds them). */
export function readersMade(index: FormulaIndex): boolean {
  return made.has(index);
}

/** The index's readers, made the first time a recalculation follows a write through them. */
export function readersOf(
  index: FormulaIndex,
  precedentsOf: (cell: IndexedFormula) => Precedents,
): FormulaReaders {
  const kept = made.get(index);
  if (kept) return kept;
  const spans = new Map<string, Spans>();
  const always: number[] = [];
  const readsPlaces: number[] = [];
  // Most spans are of the tab read just before (the formula's own): its lists found without a look-up.
  let lastSheet = '';
  let last: Spans | undefined;
  const { cells } = index;
  for (let i = 0; i < cells.length; i++) {
    if (READS_PLACES.test(cells[i]!.text)) readsPlaces.push(i);
    const precedents = precedentsOf(cells[i]!);
    if (precedents === 'always') {
      always.push(i);
      continue;
    }
    for (let p = 0; p < precedents.length; p++) {
      const { sheet, top, bottom } = precedents[p]!;
      // A reference past the last row reads nothing; one into it reads to the last row.
      if (top > EXCEL_MAX_ROWS) continue;
      if (sheet !== lastSheet || !last) {
        last = spans.get(sheet);
        if (!last) {
          last = { starts: [], ends: [], owners: [] };
          spans.set(sheet, last);
        }
        lastSheet = sheet;
      }
      const start = Math.max(0, top);
      const end = Math.min(EXCEL_MAX_ROWS, bottom);
      const n = last.owners.length - 1;
      // `=A5*B5` reads row 5 twice: one interval.
      if (n >= 0 && last.owners[n] === i && last.starts[n] === start && last.ends[n] === end) continue;
      last.starts.push(start);
      last.ends.push(end);
      last.owners.push(i);
    }
  }
  const byTab = new Map<string, IntervalPool>();
  for (const [sheet, { starts, ends, owners }] of spans)
    byTab.set(sheet, new IntervalPool(starts, ends, owners));
  const readers = { byTab, always, readsPlaces };
  made.set(index, readers);
  return readers;
}

/** The places in `cells` (sheet order) of the index's formulas in rows top..bottom, in order. */
export function formulasInRows(
  index: FormulaIndex,
  top: number,
  bottom: number,
  each: (i: number) => void,
): void {
  const { cells } = index;
  for (let i = lowerBound(cells, (cell) => cell.row >= top); i < cells.length && cells[i]!.row <= bottom; i++)
    each(i);
}
