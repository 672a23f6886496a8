/**
 * A tab the service already holds, as the evaluator reads it: what a write's recalculation starts from, so no
 * sheet is read again. Dates go back to serial numbers, error texts to error values; the header row reads as
 * its texts.
 */
import { dateToSerial } from '../../serial-dates.ts';
import type { CellTab } from '../cell-tab.ts';
import { AS_IS, BOOLEAN } from '../number-formats.ts';
import type { SheetCells } from './evaluator.ts';
import { formulaLibrary } from './parser.ts';

const ERROR_TEXT = /^#(?:DIV\/0!|N\/A|NAME\?|NULL!|NUM!|REF!|VALUE!|SPILL!|CALC!|GETTING_DATA)$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?)?$/;
const ISO_TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$/;

/** Days between the 1900 and 1904 date systems' day zero. */
const DATE1904_OFFSET = 1462;

export function snapshotCells(
  tab: CellTab,
  date1904: boolean,
  pending: (row: number, column: number) => string | undefined,
): SheetCells {
  const offset = date1904 ? DATE1904_OFFSET : 0;
  const width = tab.header.length;
  return {
    name: tab.name,
    bottom: tab.headerRow + tab.typed.length,
    right: width,
    pending,
    value: (row, column) => {
      const r = row - tab.headerRow - 1;
      if (r === -1) return tab.headerTexts[column - 1] || null;
      const value = r < 0 ? null : tab.typed[r]?.[column - 1];
      if (value === undefined || value === null) return null;
      if (typeof value !== 'string') return value;
      const code = tab.codes[r * width + column - 1] ?? AS_IS;
      if (code === AS_IS || code === BOOLEAN)
        return ERROR_TEXT.test(value) ? new (formulaLibrary().FormulaError)(value) : value;
      const serial = serialOf(value);
      return serial === undefined ? value : serial - offset;
    },
  };
}

/** An ISO 8601 date, date-time or time as the cell's serial number. */
function serialOf(iso: string): number | undefined {
  const d = ISO_DATE.exec(iso);
  if (d) {
    const [, y, m, day, h = '0', min = '0', s = '0', frac = '0'] = d;
    const ms = Math.round(Number(`0.${frac}`) * 1000);
    return dateToSerial(
      new Date(Date.UTC(Number(y), Number(m) - 1, Number(day), Number(h), Number(min), Number(s), ms)),
    );
  }
  const t = ISO_TIME.exec(iso);
  if (!t) return undefined;
  const [, h, min, s, frac = '0'] = t;
  return (Number(h) * 3600 + Number(min) * 60 + Number(s) + Number(`0.${frac}`)) / 86_400;
}
