/**
 * Each tab's formulas as the recalculation looks them over (recalculation.ts), listed once per map of them: a
 * write that leaves every formula where it was keeps the map (simple-write-tab.ts), so the next write finds the
 * list, what each formula reads and the bounds of it already made; a delete carries it over to its new map
 * (formula-index-carry.ts). A tab with a formula in every row then costs a write a pass over plain numbers, not a
 * new object and a look-up per formula.
 */
import type { CellTab } from '../cell-tab.ts';
import type { Precedents } from '../formulas/formula-text.ts';

/** A formula of a tab, where it is, and (once worked out) what it reads. */
export interface IndexedFormula {
  row: number;
  column: number;
  text: string;
  precedents?: Precedents;
}

/** A tab's formulas in sheet order, the header row's first (their results name the columns). */
export interface FormulaIndex {
  /** The tab's name, lower-cased, that the formulas' own references were read with. */
  sheet: string;
  headerRow: number;
  width: number;
  headerFormulas: ReadonlyMap<number, string>;
  cells: IndexedFormula[];
  /** Made on first use (`boundsOf`). */
  bounds?: FormulaBounds;
  /** Cells whose bounds a carried index left to work out at first use (formula-index-carry.ts). */
  toBound?: number[];
}

/** Per formula of an index, by its place in `cells`. */
export interface FormulaBounds {
  /** The first and last row of its own tab it reads (top > bottom: none). */
  top: Int32Array;
  bottom: Int32Array;
  /** It reads another tab, or is always computed again: its precedents are looked at one by one. */
  elsewhere: Uint8Array;
  /** A delete changes its result without changing what it reads: a reference cut to #REF!, or ROW. */
  readsPlaces: Uint8Array;
}

const indexes = new WeakMap<ReadonlyMap<number, string>, FormulaIndex>();

/** The index made for a map of formulas, if one was. */
export function keptIndex(formulas: ReadonlyMap<number, string>): FormulaIndex | undefined {
  return indexes.get(formulas);
}

/** `index` as the one of `formulas` (a map a write made, its index carried from the old map's). */
export function keepIndex(formulas: ReadonlyMap<number, string>, index: FormulaIndex): void {
  indexes.set(formulas, index);
}

export function formulaIndex(snapshot: CellTab, sheet: string): FormulaIndex {
  const width = snapshot.header.length;
  const kept = indexes.get(snapshot.formulas);
  if (
    kept &&
    kept.sheet === sheet &&
    kept.headerRow === snapshot.headerRow &&
    kept.width === width &&
    kept.headerFormulas === snapshot.headerFormulas
  )
    return kept;
  const cells: IndexedFormula[] = [];
  for (const [column, text] of snapshot.headerFormulas)
    cells.push({ row: snapshot.headerRow, column: column + 1, text });
  // In sheet order; a tab's map usually is already (edits put rows written last), so sort only when not.
  let entries: Iterable<[number, string]> = snapshot.formulas;
  let last = -1;
  for (const [at] of snapshot.formulas) {
    if (at < last) {
      entries = [...snapshot.formulas].sort((a, b) => a[0] - b[0]);
      break;
    }
    last = at;
  }
  for (const [at, text] of entries)
    cells.push({ row: snapshot.headerRow + 1 + Math.floor(at / width), column: (at % width) + 1, text });
  const index = {
    sheet,
    headerRow: snapshot.headerRow,
    width,
    headerFormulas: snapshot.headerFormulas,
    cells,
  };
  indexes.set(snapshot.formulas, index);
  return index;
}

/** What a delete changes the result of without changing what it reads (see FormulaBounds.readsPlaces). */
const READS_PLACES = /#REF!|\bROW\s*\(/i;

/** The index's bounds, made the first time a recalculation looks it over. */
export function boundsOf(
  index: FormulaIndex,
  precedentsOf: (cell: IndexedFormula) => Precedents,
): FormulaBounds {
  if (index.bounds) {
    for (const i of index.toBound ?? []) bound(index, index.bounds, i, precedentsOf(index.cells[i]!));
    index.toBound = undefined;
    return index.bounds;
  }
  const n = index.cells.length;
  const bounds: FormulaBounds = {
    top: new Int32Array(n),
    bottom: new Int32Array(n),
    elsewhere: new Uint8Array(n),
    readsPlaces: new Uint8Array(n),
  };
  for (let i = 0; i < n; i++) bound(index, bounds, i, precedentsOf(index.cells[i]!));
  index.bounds = bounds;
  return bounds;
}

/** Cell `i`'s bounds, from what it reads. */
function bound(index: FormulaIndex, bounds: FormulaBounds, i: number, precedents: Precedents): void {
  let top = Number.MAX_SAFE_INTEGER;
  let bottom = 0;
  let elsewhere = 0;
  if (precedents === 'always') elsewhere = 1;
  else
    for (const p of precedents) {
      if (p.sheet !== index.sheet) elsewhere = 1;
      top = Math.min(top, p.top);
      bottom = Math.max(bottom, p.bottom);
    }
  bounds.top[i] = Math.min(top, NO_ROW);
  bounds.bottom[i] = bottom;
  bounds.elsewhere[i] = elsewhere;
  bounds.readsPlaces[i] = READS_PLACES.test(index.cells[i]!.text) ? 1 : 0;
}

/** The top bound of a formula that reads no row (its bottom is 0). */
const NO_ROW = 2 ** 31 - 1;
