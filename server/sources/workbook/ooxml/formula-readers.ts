/**
 * Which formulas of a tab read which cells, per tab they read: what the recalculation after a write follows, from
 * the rows the write changed to the formulas reading them and on from those formulas' cells (recalculation.ts).
 * Each formula's row spans go into an interval pool per tab and band of columns read (lib/interval-pool.ts),
 * which hands each one over once: following a chain of 30,000 running balances (`=B2+A3`) looked every formula
 * over once per link, about 60 s of the service's thread for one changed cell. By band, a formula's new result
 * reaches the formulas reading its column, not every one reading its row (a rate's lookup in every row of an
 * order sheet no longer reaches each row's count of its code). Made once per index of formulas and kept with it,
 * as its bounds are (formula-index.ts).
 */

import { IntervalPool } from '../../../lib/interval-pool.ts';
import { lowerBound } from '../../../lib/lower-bound.ts';
import { EXCEL_MAX_COLUMNS, EXCEL_MAX_ROWS } from '../excel-grid.ts';
import type { Precedents, ReadArea } from '../formulas/formula-text.ts';
import type { FormulaIndex, IndexedFormula } from './formula-index.ts';

/** The formulas reading one band of a tab's columns: the row spans each reads there, by its place in `cells`. */
export interface ColumnReaders {
  left: number;
  right: number;
  pool: IntervalPool;
}

export interface FormulaReaders {
  /** Per tab read (its lower-cased name): its readers, by the band of columns they read. */
  byTab: Map<string, ColumnReaders[]>;
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

/**
 * Most bands of columns per tab read: a query looks each band over, so past this many (formulas reading columns
 * of every width and place) the tab's readers are held as one band of every column, found by rows alone.
 */
const MAX_BANDS = 32;

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
  // Per tab read, then per band of columns (`left:right`).
  const spans = new Map<string, Map<string, Spans>>();
  const always: number[] = [];
  const readsPlaces: number[] = [];
  // Most areas are of the band read just before (the formula's own row's last): its lists found at once.
  let lastSheet = '';
  let lastLeft = 0;
  let lastRight = 0;
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
      const area: ReadArea = precedents[p]!;
      const { sheet, top, bottom, left, right } = area;
      // A reference past the last row reads nothing; one into it reads to the last row.
      if (top > EXCEL_MAX_ROWS) continue;
      if (sheet !== lastSheet || left !== lastLeft || right !== lastRight || !last) {
        const bands: Map<string, Spans> = spans.get(sheet) ?? new Map();
        spans.set(sheet, bands);
        last = bands.get(`${left}:${right}`);
        if (!last) {
          last = { starts: [], ends: [], owners: [] };
          bands.set(`${left}:${right}`, last);
        }
        lastSheet = sheet;
        lastLeft = left;
        lastRight = right;
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
  const byTab = new Map<string, ColumnReaders[]>();
  for (const [sheet, bands] of spans) byTab.set(sheet, columnReaders(bands));
  const readers = { byTab, always, readsPlaces };
  made.set(index, readers);
  return readers;
}

/** A tab's bands of readers; past MAX_BANDS, one band of every column. */
function columnReaders(bands: Map<string, Spans>): ColumnReaders[] {
  const pool = ({ starts, ends, owners }: Spans) => new IntervalPool(starts, ends, owners);
  if (bands.size <= MAX_BANDS)
    return [...bands].map(([band, spans]) => {
      const [left, right] = band.split(':').map(Number) as [number, number];
      return { left, right, pool: pool(spans) };
    });
  const all: Spans = { starts: [], ends: [], owners: [] };
  for (const spans of bands.values())
    for (let i = 0; i < spans.owners.length; i++) {
      all.starts.push(spans.starts[i]!);
      all.ends.push(spans.ends[i]!);
      all.owners.push(spans.owners[i]!);
    }
  return [{ left: 1, right: EXCEL_MAX_COLUMNS, pool: pool(all) }];
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
