/**
 * A tab's new version after a write that only deleted rows from a tab without formulas: the old rows and
 * format codes with the deleted ones cut out, run by run. What edited-tab.ts works out row by row for any write,
 * at the cost of copying: a delete from a tab of a million rows then takes milliseconds here, not a second of
 * the service's thread. Undefined when the write was anything else (edited-tab.ts then does it).
 */
import type { CellValue } from '../../source.ts';
import { CellTab } from '../cell-tab.ts';
import type { SheetRowChanges } from './sheet-edit.ts';

export function tabAfterDeletes(old: CellTab, changes: SheetRowChanges): CellTab | undefined {
  const onlyDeletes =
    changes.deleted.length > 0 &&
    changes.updated.length === 0 &&
    changes.cleared.length === 0 &&
    changes.appended.length === 0 &&
    !changes.newHeader &&
    !changes.header &&
    old.formulas.size === 0 &&
    old.headerFormulas.size === 0;
  if (!onlyDeletes) return undefined;
  const count = old.typed.length;
  // Data row indexes, ascending and distinct; a delete of the header or of rows past the data is not ours.
  const gone = [...new Set(changes.deleted.map((row) => row - old.headerRow - 1))].sort((a, b) => a - b);
  if (gone[0]! < 0 || gone.at(-1)! >= count) return undefined;
  const width = old.header.length;
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
  // A tab ends at its last row with a value: rows left empty at the end go (their codes with them).
  let rows = typed.length;
  while (rows > 0 && typed[rows - 1]!.every((value) => value === null)) rows--;
  // A column whose last value went may end the tab narrower: edited-tab.ts decides that.
  const lastColumnKept = width === 0 || old.headerTexts[width - 1] !== '';
  if (!lastColumnKept) return undefined;
  return new CellTab({
    sourceSheetId: old.sourceSheetId,
    name: old.name,
    header: old.header,
    headerTexts: old.headerTexts,
    headerRow: rows === 0 && old.header.length === 0 ? 0 : old.headerRow,
    typed: rows === typed.length ? typed : typed.slice(0, rows),
    codes: rows === typed.length ? codes : codes.slice(0, rows * width),
    numberFormats: old.numberFormats,
    shared: old.shared,
  });
}
