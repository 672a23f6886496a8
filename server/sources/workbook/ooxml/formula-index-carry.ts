/**
 * A delete gives its tab a new map of formulas (simple-write-tab.ts), and the recalculation's index of them
 * (formula-index.ts) would be made again for it: a new object per formula and, at the first recalculation, what
 * each reads looked up by its new text. At 100,000 formulas that was about 60 ms of the service's thread per
 * delete. Instead the old map's index is carried over: the formulas left keep their order, each at its new row
 * with its shifted text, and each bound moves up with the rows it reads. A formula whose bounds hold a deleted
 * row (it may read less now, or #REF!) or that reads another tab is left to be worked out at first use, from
 * its new text, as a new index would be; so the carried index is the one that would have been made.
 */
import { countBelow } from '../../../lib/lower-bound.ts';
import {
  type FormulaBounds,
  type FormulaIndex,
  type IndexedFormula,
  keepIndex,
  keptIndex,
} from './formula-index.ts';

export interface FormulasAfterDelete {
  formulas: ReadonlyMap<number, string>;
  headerFormulas: ReadonlyMap<number, string>;
}

/**
 * Carries the index of `oldFormulas` (if the recalculation made one) to `after`, the maps a delete of the sheet
 * rows `gone` (ascending) made from them. Nothing is carried when the maps do not match the index's cells.
 */
export function carryIndexAcrossDelete(
  oldFormulas: ReadonlyMap<number, string>,
  after: FormulasAfterDelete,
  gone: readonly number[],
): void {
  const old = keptIndex(oldFormulas);
  if (!old || after.formulas === oldFormulas || keptIndex(after.formulas)) return;
  const moved = movedCells(old, after, gone);
  if (!moved) return;
  const index: FormulaIndex = {
    sheet: old.sheet,
    headerRow: old.headerRow,
    width: old.width,
    headerFormulas: after.headerFormulas,
    cells: moved.cells,
  };
  // Bounds some of which are still to be worked out are not carried: the new index works them all out.
  if (old.bounds && !old.toBound?.length) Object.assign(index, movedBounds(old.bounds, moved.from, gone));
  keepIndex(after.formulas, index);
}

/** The formulas left, at their new rows with their new texts, and where each was in the old index. */
function movedCells(
  old: FormulaIndex,
  after: FormulasAfterDelete,
  gone: readonly number[],
): { cells: IndexedFormula[]; from: Int32Array } | undefined {
  const { headerRow, width } = old;
  const cells: IndexedFormula[] = [];
  const from = new Int32Array(old.cells.length);
  let data = 0;
  for (let j = 0; j < old.cells.length; j++) {
    const { row, column } = old.cells[j]!;
    // The rows it moves up by: those of `gone` above it.
    const above = countBelow(gone, row);
    if (gone[above] === row) continue;
    const newRow = row - above;
    const text =
      row === headerRow
        ? after.headerFormulas.get(column - 1)
        : after.formulas.get((newRow - headerRow - 1) * width + column - 1);
    if (text === undefined) return undefined;
    if (row !== headerRow) data++;
    from[cells.length] = j;
    cells.push({ row: newRow, column, text });
  }
  if (data !== after.formulas.size || cells.length - data !== after.headerFormulas.size) return undefined;
  return { cells, from: from.subarray(0, cells.length) };
}

/** The old bounds moved with the rows they read; those a delete cut into, or of another tab, to work out again. */
function movedBounds(
  old: FormulaBounds,
  from: Int32Array,
  gone: readonly number[],
): { bounds: FormulaBounds; toBound: number[] } {
  const n = from.length;
  const bounds: FormulaBounds = {
    top: new Int32Array(n),
    bottom: new Int32Array(n),
    elsewhere: new Uint8Array(n),
    readsPlaces: new Uint8Array(n),
  };
  const toBound: number[] = [];
  for (let k = 0; k < n; k++) {
    const j = from[k]!;
    const top = old.top[j]!;
    const bottom = old.bottom[j]!;
    const above = top <= bottom ? countBelow(gone, top) : 0;
    // A deleted row at or above `top` and at or below `bottom`: the formula read it.
    const cut = top <= bottom && above < gone.length && gone[above]! <= bottom;
    if (old.elsewhere[j] || cut) {
      toBound.push(k);
      continue;
    }
    // A formula that reads no row (top past bottom) has `above` 0: its bounds stay as they were.
    bounds.top[k] = top - above;
    bounds.bottom[k] = bottom - above;
    bounds.readsPlaces[k] = old.readsPlaces[j]!;
  }
  return { bounds, toBound };
}
