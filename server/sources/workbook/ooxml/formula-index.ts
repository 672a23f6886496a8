/**
 * Each tab's formulas as the recalculation looks them over (recalculation.ts), listed once per map of them: a
 * write that leaves every formula where it was keeps the map (simple-write-tab.ts), so the next write finds the
 * list, what each formula reads and its readers (formula-readers.ts) already made; a delete carries the list over
 * to its new map (formula-index-carry.ts). A tab with a formula in every row then costs a write no new object
 * and no look-up per formula.
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
