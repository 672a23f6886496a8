/**
 * A tab the service already holds, as the evaluator reads it: what a write's recalculation starts from, so no
 * sheet is read again. Dates go back to serial numbers, error texts to error values; the header row reads as
 * its texts.
 */
import { parseIsoDateTime } from '../../input.ts';
import { type DateSystem, workbookDateSystem } from '../../serial-dates.ts';
import type { CellTab } from '../cell-tab.ts';
import { AS_IS, BOOLEAN } from '../number-formats.ts';
import type { SheetCells } from './evaluator.ts';
import { formulaLibrary } from './parser.ts';

const ERROR_TEXT = /^#(?:DIV\/0!|N\/A|NAME\?|NULL!|NUM!|REF!|VALUE!|SPILL!|CALC!|GETTING_DATA)$/;

export function snapshotCells(
  tab: CellTab,
  date1904: boolean,
  pending: (row: number, column: number) => string | undefined,
): SheetCells {
  const dates = workbookDateSystem(date1904);
  const width = tab.header.length;
  return {
    name: tab.name,
    bottom: tab.headerRow + tab.typed.length,
    right: width,
    pending,
    formula: (row, column) => {
      const r = row - tab.headerRow - 1;
      if (r === -1) return tab.headerFormulas.get(column - 1);
      return r < 0 ? undefined : tab.formulas.get(r * width + column - 1);
    },
    value: (row, column) => {
      const r = row - tab.headerRow - 1;
      if (r === -1) return tab.headerTexts[column - 1] || null;
      const value = r < 0 ? null : tab.typed[r]?.[column - 1];
      if (value === undefined || value === null) return null;
      if (typeof value !== 'string') return value;
      const code = tab.codes.at(r, column - 1);
      if (code === AS_IS || code === BOOLEAN)
        return ERROR_TEXT.test(value) ? new (formulaLibrary().FormulaError)(value) : value;
      return serialOf(value, dates) ?? value;
    },
  };
}

/** A date cell's ISO 8601 text as its serial number in the workbook's date system (serial-dates.ts). */
function serialOf(iso: string, dates: DateSystem): number | null {
  const date = parseIsoDateTime(iso);
  return date && dates.serial(date.value, date.timeOnly);
}
