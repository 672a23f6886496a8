/**
 * A tab's new version after the common writes (rows appended or updated, leaving every formula as it was; rows
 * deleted, the formulas below them moved and shifted; header left alone), made by copying the old version's rows and format
 * codes in runs and reading back only the rows written. What edited-tab.ts works out row by row for any write: a
 * write to a tab of a million rows then costs milliseconds here, not a second of the service's thread. A tab
 * with a formula in every row (a total column) keeps its map of formulas as it is, which the recalculation's
 * index of them is keyed by (recalculation.ts). Undefined for any other write (a formula written or moved, a
 * header written, deletes together with other edits, a last column that may end): the general rule then does it.
 *
 * What the new version reads of the sheet (the rows written) is read at once, while the sheet is as the write
 * left it; the copy of the old version's rows (8 MB at a million rows, about 25 ms, most of it fresh memory) is
 * made only when the version is first asked for: held-tabs.ts asks while the file is flushed to disk.
 */
import { lengthened } from '../../../lib/append-room.ts';
import { countBelow } from '../../../lib/lower-bound.ts';
import { noteSharedRows, rowsAround } from '../../../lib/shared-rows.ts';
import type { CellValue } from '../../source.ts';
import { rowCountOf } from '../../tab-rows.ts';
import { CellTab } from '../cell-tab.ts';
import { FormatCodes } from '../format-codes.ts';
import { type ReadRow, shiftHeaderFormulas } from './edited-tab.ts';
import { carryIndexAcrossDelete } from './formula-index-carry.ts';
import type { SheetRowChanges } from './sheet-edit.ts';

/** A tab's new version, made when called (once). */
export type LaterTab = () => CellTab;

export function tabAfterSimpleWrite(
  old: CellTab,
  changes: SheetRowChanges,
  readRow: (row: number) => ReadRow | null,
  /** How a formula reads after the write's deletes: without it, a delete on a tab with formulas is not ours. */
  shiftFormula?: (text: string) => string,
): LaterTab | undefined {
  const width = old.header.length;
  const simple =
    !changes.newHeader &&
    !changes.header &&
    // A column whose last value goes may end the tab narrower: the general rule decides that.
    (width === 0 || old.headerTexts[width - 1] !== '');
  if (!simple) return undefined;
  const written = [...changes.updated, ...changes.cleared, ...changes.appended];
  if (changes.deleted.length > 0) {
    const formulas = old.formulas.size > 0 || old.headerFormulas.size > 0;
    if (written.length > 0 || (formulas && !shiftFormula)) return undefined;
    return afterDeletes(old, changes.deleted, shiftFormula ?? ((text) => text));
  }
  return afterEdits(old, written, readRow);
}

function afterDeletes(
  old: CellTab,
  deleted: readonly number[],
  shiftFormula: (text: string) => string,
): LaterTab | undefined {
  const count = rowCountOf(old);
  // Data row indexes, ascending and distinct; a delete of the header or of rows past the data is not ours.
  const gone = [...new Set(deleted.map((row) => row - old.headerRow - 1))].sort((a, b) => a - b);
  if (gone[0]! < 0 || gone.at(-1)! >= count) return undefined;
  // The formulas now, while the service's thread makes the write (the recalculation reads them at once).
  const formulas = formulasAfterDeletes(old, gone, shiftFormula);
  return () => withoutDeleted(old, gone, formulas);
}

/**
 * The formulas of the rows left, each at its row's new place and shifted as the delete says (references below
 * the deleted rows move up or become #REF!), and the header row's, shifted. The same maps when the tab has none.
 */
function formulasAfterDeletes(
  old: CellTab,
  gone: readonly number[],
  shiftFormula: (text: string) => string,
): Pick<CellTab, 'formulas' | 'headerFormulas'> {
  const width = old.header.length;
  const headerFormulas = shiftHeaderFormulas(old.headerFormulas, shiftFormula);
  if (old.formulas.size === 0) return { formulas: old.formulas, headerFormulas };
  const formulas = new Map<number, string>();
  for (const [at, text] of old.formulas) {
    const row = Math.floor(at / width);
    // The rows it moves up by: those of `gone` above it.
    const above = countBelow(gone, row);
    if (gone[above] === row) continue;
    formulas.set(at - above * width, shiftFormula(text));
  }
  const after = { formulas, headerFormulas };
  carryIndexAcrossDelete(
    old.formulas,
    after,
    gone.map((index) => old.headerRow + 1 + index),
  );
  return after;
}

function withoutDeleted(
  old: CellTab,
  gone: readonly number[],
  formulas: Pick<CellTab, 'formulas' | 'headerFormulas'>,
): CellTab {
  const count = old.typed.length;
  const width = old.header.length;
  const typed = withoutRows(old.typed, gone);
  const cells = old.codes.cells;
  // Codes held per column hold for any number of rows: shared as they are.
  if (!cells) return newVersion(old, typed, old.codes, rowsAround(gone, count), formulas);
  const codes = new Uint16Array((count - gone.length) * width);
  let to = 0;
  let from = 0;
  for (const index of [...gone, count]) {
    codes.set(cells.subarray(from * width, index * width), to * width);
    to += index - from;
    from = index + 1;
  }
  return newVersion(old, typed, FormatCodes.perCell(codes, width), rowsAround(gone, count), formulas);
}

/**
 * `rows` without the rows at `gone` (ascending), copied in bulk (a slice, a splice) rather than a row at a time,
 * which pays V8's write barrier on every store while its collector marks: at a million rows 28-37 ms in bulk
 * against 35-52 ms a row at a time.
 */
function withoutRows<T>(rows: readonly T[], gone: readonly number[]): T[] {
  if (gone.length <= FEW_GONE) {
    const out = rows.slice();
    for (let k = gone.length - 1; k >= 0; k--) out.splice(gone[k]!, 1);
    return out;
  }
  const runs: T[][] = [];
  let from = 0;
  for (const index of gone) {
    if (index > from) runs.push(rows.slice(from, index));
    from = index + 1;
  }
  if (from < rows.length) runs.push(rows.slice(from));
  return runs.length === 1 ? runs[0]! : ([] as T[]).concat(...runs);
}

/** Up to this many rows deleted at once, each is spliced out of one copy (a move of the rows below it). */
const FEW_GONE = 4;

/** A copy of `codes`, its rows' codes at `size`, to write anywhere. */
function ownCodes(codes: Uint16Array, size: number): Uint16Array {
  const out = new Uint16Array(size);
  out.set(codes.subarray(0, Math.min(codes.length, size)));
  return out;
}

/** A row written: its index among the data rows and its format codes by column. */
interface WrittenRow {
  index: number;
  codes: number[];
}

/** A row written, as read back: its values too. */
interface ReadBack extends WrittenRow {
  values: CellValue[];
}

/** Rows written in place or past the end (a gap up to an appended row reads as empty rows). */
function afterEdits(
  old: CellTab,
  written: readonly number[],
  readRow: (row: number) => ReadRow | null,
): LaterTab | undefined {
  const width = old.header.length;
  const indexes = written.map((row) => row - old.headerRow - 1);
  if (indexes.some((index) => index < 0)) return undefined;
  const rows: ReadBack[] = [];
  for (const index of indexes) {
    const read = readRow(old.headerRow + 1 + index);
    if (!sameFormulas(old, index, read?.formulas ?? [])) return undefined;
    rows.push({
      index,
      values: padTo(read?.values ?? [], width, null),
      codes: padTo(read?.codes ?? [], width, 0),
    });
  }
  return () => withWritten(old, rows);
}

/** Whether row `index` as written holds the formulas the old version has there (none for a row past its end). */
function sameFormulas(old: CellTab, index: number, formulas: readonly (string | undefined)[]): boolean {
  const width = old.header.length;
  if (old.formulas.size === 0) return formulas.every((text) => text === undefined);
  for (let column = 0; column < Math.max(width, formulas.length); column++) {
    const held = column < width ? old.formulas.get(index * width + column) : undefined;
    if (formulas[column] !== held) return false;
  }
  return true;
}

function withWritten(old: CellTab, rows: readonly ReadBack[]): CellTab {
  const width = old.header.length;
  const before = old.typed.length;
  // A loop, not a spread: a running balance changed at its top rewrites every row, past what a call can take.
  let count = before;
  for (const row of rows) count = Math.max(count, row.index + 1);
  // One copy of the old rows, made at its final length: pushing onto a copy of a million rows would grow it
  // again (another 12 MB a write).
  const added: CellValue[][] = [];
  for (let r = before; r < count; r++) added.push(new Array<CellValue>(width).fill(null));
  const typed: CellValue[][] = added.length > 0 ? old.typed.concat(added) : old.typed.slice();
  for (const row of rows) typed[row.index] = row.values;
  // Rows above the first written and below the last (when none was added) are the old version's own.
  const around = rowsAround(
    rows.map((row) => row.index),
    before,
  );
  const shared = { head: around.head, tail: count === before ? around.tail : 0 };
  return newVersion(old, typed, codesAfterEdits(old.codes, before, count, rows), shared);
}

/**
 * The format codes after rows were written, `count` rows in all. Shared with the old version while they say the
 * same of every row: codes held per column when each row written (and each row added between) has them, codes
 * per cell when no row written got other codes (an update of values in place, most writes: no copy of 20 MB at
 * a million rows of ten columns). An append writes its rows' codes into the room after the old version's
 * (lib/append-room.ts).
 */
function codesAfterEdits(
  old: FormatCodes,
  before: number,
  count: number,
  rows: readonly WrittenRow[],
): FormatCodes {
  const width = old.width;
  const byColumn = old.byColumn;
  if (byColumn) {
    // Rows added but not written (a gap up to an appended row) have no codes: the same only if none has any.
    const added = new Set(rows.filter((row) => row.index >= before).map((row) => row.index)).size;
    const gapsAlike = added === count - before || byColumn.every((code) => code === 0);
    if (gapsAlike && rows.every((row) => old.sameForEveryRow(row.codes))) return old;
    const cells = old.perCellCopy(before, count);
    for (const row of rows) cells.set(row.codes, row.index * width);
    return FormatCodes.perCell(cells, width);
  }
  const oldCells = old.cells!;
  const used = before * width;
  let cells = oldCells;
  if (count * width > used)
    cells =
      oldCells.length === used ? lengthened(oldCells, count * width) : ownCodes(oldCells, count * width);
  for (const row of rows) {
    const at = row.index * width;
    if (row.index < before && cells.buffer === oldCells.buffer) {
      if (row.codes.every((code, c) => code === oldCells[at + c])) continue;
      cells = ownCodes(cells, count * width);
    }
    cells.set(row.codes, at);
  }
  return cells === oldCells ? old : FormatCodes.perCell(cells, width);
}

/**
 * The tab with these rows and codes, rows left empty at its end dropped (a tab ends at its last value). `shared`:
 * how many of `typed`'s first and last rows are the old version's own (lib/shared-rows.ts).
 */
function newVersion(
  old: CellTab,
  typed: CellValue[][],
  codes: FormatCodes,
  shared: { head: number; tail: number },
  { formulas, headerFormulas }: Pick<CellTab, 'formulas' | 'headerFormulas'> = old,
): CellTab {
  const width = old.header.length;
  let rows = typed.length;
  while (rows > 0 && typed[rows - 1]!.every((value) => value === null)) rows--;
  const kept = rows === typed.length ? typed : typed.slice(0, rows);
  // Rows dropped at the end leave the old version's last rows elsewhere than at the end.
  noteSharedRows(kept, old.typed, shared.head, kept === typed ? shared.tail : 0);
  return new CellTab({
    sourceSheetId: old.sourceSheetId,
    name: old.name,
    header: old.header,
    headerTexts: old.headerTexts,
    headerRow: rows === 0 && old.header.length === 0 ? 0 : old.headerRow,
    typed: kept,
    codes:
      rows === typed.length || !codes.cells
        ? codes
        : FormatCodes.perCell(codes.cells.slice(0, rows * width), width),
    numberFormats: old.numberFormats,
    shared: old.shared,
    // The same map while every row stays (the recalculation's index is kept by it); rows dropped at the end
    // take their formulas with them, as the general rule does.
    formulas: rows === typed.length ? formulas : formulasAbove(formulas, rows * width),
    headerFormulas,
  });
}

function formulasAbove(formulas: ReadonlyMap<number, string>, end: number): ReadonlyMap<number, string> {
  if (formulas.size === 0) return formulas;
  return new Map([...formulas].filter(([at]) => at < end));
}

function padTo<T>(row: readonly T[], width: number, empty: T): T[] {
  const out = row.slice(0, width);
  while (out.length < width) out.push(empty);
  return out;
}
