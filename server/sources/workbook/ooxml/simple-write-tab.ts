/**
 * A tab's new version after the common writes (rows appended, updated or deleted, to a tab without formulas,
 * header left alone), made by copying the old version's rows and format codes in runs and reading back only
 * the rows written. What edited-tab.ts works out row by row for any write: a write to a tab of a million rows
 * then costs milliseconds here, not a second of the service's thread. Undefined for any other write (a
 * formula anywhere, a header written, deletes together with other edits, a last column that may end): the
 * general rule then does it.
 */
import { lengthened } from '../../../lib/append-room.ts';
import { noteSharedRows, rowsAround } from '../../../lib/shared-rows.ts';
import type { CellValue } from '../../source.ts';
import { CellTab } from '../cell-tab.ts';
import type { ReadRow } from './edited-tab.ts';
import type { SheetRowChanges } from './sheet-edit.ts';

export function tabAfterSimpleWrite(
  old: CellTab,
  changes: SheetRowChanges,
  readRow: (row: number) => ReadRow | null,
): CellTab | undefined {
  const width = old.header.length;
  const simple =
    !changes.newHeader &&
    !changes.header &&
    old.formulas.size === 0 &&
    old.headerFormulas.size === 0 &&
    // A column whose last value goes may end the tab narrower: the general rule decides that.
    (width === 0 || old.headerTexts[width - 1] !== '');
  if (!simple) return undefined;
  const written = [...changes.updated, ...changes.cleared, ...changes.appended];
  if (changes.deleted.length > 0)
    return written.length === 0 ? afterDeletes(old, changes.deleted) : undefined;
  return afterEdits(old, written, readRow);
}

function afterDeletes(old: CellTab, deleted: readonly number[]): CellTab | undefined {
  const count = old.typed.length;
  const width = old.header.length;
  // Data row indexes, ascending and distinct; a delete of the header or of rows past the data is not ours.
  const gone = [...new Set(deleted.map((row) => row - old.headerRow - 1))].sort((a, b) => a - b);
  if (gone[0]! < 0 || gone.at(-1)! >= count) return undefined;
  const typed: CellValue[][] = new Array(count - gone.length);
  const codes = new Uint16Array((count - gone.length) * width);
  let to = 0;
  let from = 0;
  for (const index of [...gone, count]) {
    for (let r = from; r < index; r++) typed[to + r - from] = old.typed[r]!;
    codes.set(old.codes.subarray(from * width, index * width), to * width);
    to += index - from;
    from = index + 1;
  }
  return newVersion(old, typed, codes, rowsAround(gone, count));
}

/** A copy of `codes`, its rows' codes at `size`, to write anywhere. */
function ownCodes(codes: Uint16Array, size: number): Uint16Array {
  const out = new Uint16Array(size);
  out.set(codes.subarray(0, Math.min(codes.length, size)));
  return out;
}

/** Rows written in place or past the end (a gap up to an appended row reads as empty rows). */
function afterEdits(
  old: CellTab,
  written: readonly number[],
  readRow: (row: number) => ReadRow | null,
): CellTab | undefined {
  const width = old.header.length;
  const indexes = written.map((row) => row - old.headerRow - 1);
  if (indexes.some((index) => index < 0)) return undefined;
  const count = Math.max(old.typed.length, ...indexes.map((index) => index + 1));
  // One copy of the old rows, made at its final length: pushing onto a copy of a million rows would grow it
  // again (another 12 MB a write).
  const added: CellValue[][] = [];
  for (let r = old.typed.length; r < count; r++) added.push(new Array<CellValue>(width).fill(null));
  const typed: CellValue[][] = added.length > 0 ? old.typed.concat(added) : old.typed.slice();
  // The format codes are shared with the old version until a row of its own gets other codes: an update of
  // values in place (most writes) copies none of them (20 MB at a million rows of ten columns), and an append
  // writes its rows' codes into the room after the old version's (lib/append-room.ts).
  const used = old.typed.length * width;
  let codes = old.codes;
  if (count * width > used) {
    codes =
      old.codes.length === used ? lengthened(old.codes, count * width) : ownCodes(old.codes, count * width);
  }
  // Rows above the first written and below the last (when none was added) are the old version's own.
  const around = rowsAround(indexes, old.typed.length);
  const shared = { head: around.head, tail: count === old.typed.length ? around.tail : 0 };
  for (const index of indexes) {
    const read = readRow(old.headerRow + 1 + index);
    if (read?.formulas.some((text) => text !== undefined)) return undefined;
    typed[index] = padTo(read?.values ?? [], width, null);
    const rowCodes = padTo(read?.codes ?? [], width, 0);
    const at = index * width;
    const oldRow = index < old.typed.length;
    if (oldRow && codes.buffer === old.codes.buffer) {
      if (rowCodes.every((code, c) => code === old.codes[at + c])) continue;
      codes = ownCodes(codes, count * width);
    }
    codes.set(rowCodes, at);
  }
  return newVersion(old, typed, codes, shared);
}

/**
 * The tab with these rows and codes, rows left empty at its end dropped (a tab ends at its last value). `shared`:
 * how many of `typed`'s first and last rows are the old version's own (lib/shared-rows.ts).
 */
function newVersion(
  old: CellTab,
  typed: CellValue[][],
  codes: Uint16Array,
  shared: { head: number; tail: number },
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
    codes: rows === typed.length ? codes : codes.slice(0, rows * width),
    numberFormats: old.numberFormats,
    shared: old.shared,
  });
}

function padTo<T>(row: readonly T[], width: number, empty: T): T[] {
  const out = row.slice(0, width);
  while (out.length < width) out.push(empty);
  return out;
}
