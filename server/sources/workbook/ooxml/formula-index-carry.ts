/**
 * A delete gives its tab a new map of formulas (simple-write-tab.ts), and the recalculation's index of them
 * (formula-index.ts) would be made again for it: a new object per formula, at the first recalculation. Instead
 * the old map's index is carried over: the formulas left keep their order, each at its new row with its shifted
 * text, and a formula whose text the delete left as it was keeps what it reads, worked out before; the others'
 * are looked up by their new texts when the readers are made (formula-readers.ts). So the carried index is the
 * one that would have been made.
 */
import { countBelow } from '../../../lib/lower-bound.ts';
import { type FormulaIndex, type IndexedFormula, keepIndex, keptIndex } from './formula-index.ts';

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
  const cells = movedCells(old, after, gone);
  if (!cells) return;
  const index: FormulaIndex = {
    sheet: old.sheet,
    headerRow: old.headerRow,
    width: old.width,
    headerFormulas: after.headerFormulas,
    cells,
  };
  keepIndex(after.formulas, index);
}

/** The formulas left, at their new rows with their new texts (what an unchanged text reads, kept). */
function movedCells(
  old: FormulaIndex,
  after: FormulasAfterDelete,
  gone: readonly number[],
): IndexedFormula[] | undefined {
  const { headerRow, width } = old;
  const cells: IndexedFormula[] = [];
  let data = 0;
  for (const cell of old.cells) {
    const { row, column } = cell;
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
    const moved: IndexedFormula = { row: newRow, column, text };
    if (text === cell.text && cell.precedents) moved.precedents = cell.precedents;
    cells.push(moved);
  }
  if (data !== after.formulas.size || cells.length - data !== after.headerFormulas.size) return undefined;
  return cells;
}
