/**
 * Which cells of a write to an .xlsx tab show a number as a date (sources/date-cells.ts `DateTargets`), as the
 * sheet edit will style them: an updated cell keeps its own style; an appended cell takes the style of the cell
 * it lands on, else that of the row appended rows copy (sheet-edit.ts `appendPlace`). Read from the sheet before
 * the write, so planning can refuse a number such a cell cannot show before anything is written.
 */
import type { DateTarget, DateTargets } from '../../date-cells.ts';
import { workbookDateSystem } from '../../serial-dates.ts';
import type { CellTab } from '../cell-tab.ts';
import { RowMap } from '../row-map.ts';
import { isDateFormat } from '../values.ts';
import { styleOf } from './cell-write.ts';
import type { OpenWorkbook } from './open-workbook.ts';
import { cellAt, parseRow } from './row-xml.ts';
import { appendPlace, splitTableDeletes } from './sheet-edit.ts';
import type { Tab } from './workbook-tabs.ts';

/** The sheet row a row has before `deleted` (ascending sheet rows) are deleted, given its number after. */
function rowBeforeDeletes(after: number, deleted: readonly number[]): number {
  let row = after;
  for (const gone of deleted) {
    if (gone > row) break;
    row++;
  }
  return row;
}

export function xlsxDateTargets(wb: OpenWorkbook, tab: Tab, snapshot: CellTab): DateTargets {
  const sheet = wb.pkg.sheetXml(tab.part);
  const styles = wb.pkg.styles();
  const system = workbookDateSystem(wb.book.date1904);
  const rows = new Map<number, ReturnType<typeof parseRow> | null>();
  /** The style id of the cell at (sheet row, 1-based column), or undefined when the row has no such cell. */
  const styleAt = (row: number, column: number): number | undefined => {
    let parsed = rows.get(row);
    if (parsed === undefined) {
      const slot = sheet.row(row);
      parsed = slot ? parseRow(slot.xml, sheet.prefix) : null;
      rows.set(row, parsed);
    }
    const cell = parsed ? cellAt(parsed, column) : undefined;
    return cell ? styleOf(cell.xml) : undefined;
  };
  const dateOf = (style: number): DateTarget => (isDateFormat(styles.numFmt(style)) ? system : undefined);

  return {
    updated: (row, column) => dateOf(styleAt(snapshot.headerRow + row, column + 1) ?? 0),
    appended(deletedRows) {
      const headerRow = snapshot.header.length === 0 ? 1 : snapshot.headerRow;
      const deletes = splitTableDeletes(
        wb.pkg.tablesOf(tab.part),
        deletedRows.map((row) => snapshot.headerRow + row),
        (sheetRow) => sheetRow - snapshot.headerRow,
      );
      const removed = [...deletes.remove].sort((a, b) => a - b);
      const moved = new RowMap(removed);
      const kept = new Set(deletes.clear.map((row) => moved.row(row) as number));
      const place = appendPlace(headerRow, snapshot.typed.length - removed.length, kept);
      const styleRow = place.styleRow === undefined ? undefined : rowBeforeDeletes(place.styleRow, removed);
      return (nth, column) => {
        const landing = rowBeforeDeletes(place.last + 1 + nth, removed);
        const own = styleAt(landing, column + 1);
        const copied = styleRow === undefined ? undefined : styleAt(styleRow, column + 1);
        return dateOf(own ?? copied ?? 0);
      };
    },
  };
}
