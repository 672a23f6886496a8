/**
 * One row of a sheet part as a write left it, read back for `editedTab` (edited-tab.ts): values, number
 * number formats, display texts and formula texts, merged non-anchor cells empty. Shared strings and number formats are
 * the tab's own (a write adds to them), so the row reads as a fresh read of the file would.
 */

import type { CellTab } from '../cell-tab.ts';
import { Kind } from '../encoded-tab.ts';
import { displayText, NumberFormatTable } from '../number-formats.ts';
import { type DecodedCell, decodeCell, type ReadContext } from './cell-decode.ts';
import type { ReadRow } from './edited-tab.ts';
import { mergeCover, mergeRefsIn } from './merged-cells.ts';
import type { ScannedCell } from './scanned-cell.ts';
import { scanSheet } from './sheet-scan.ts';
import type { SheetXml } from './sheet-xml.ts';
import type { StylesPart } from './styles-part.ts';

/** Row `number` of `sheet`, read with the strings and number formats of `old` (the tab before the write); null if none. */
export function readSheetRow(
  sheet: SheetXml,
  number: number,
  old: CellTab,
  styles: StylesPart,
  date1904: boolean,
): ReadRow | null {
  const slot = sheet.row(number);
  if (!slot) return null;
  const covered = mergeCover(mergeRefsIn(sheet.tail));
  const numberFormats = new NumberFormatTable(old.numberFormats);
  const ctx: ReadContext = { date1904, styles, sharedString: (index) => old.shared.get(index) };
  const row: ReadRow = { values: [], codes: [], texts: [], formulas: [] };
  const decoded: DecodedCell = { kind: Kind.Empty, number: 0, text: '', code: 0 };
  const p = sheet.prefix;
  const oldWidth = old.header.length;
  scanSheet(`<${p}sheetData>${slot.xml}</${p}sheetData>`, {
    cell: (cell: ScannedCell) => {
      if (covered(number, cell.column)) return;
      const c = cell.column - 1;
      if (cell.formula !== undefined && cell.formulaType !== 'dataTable') {
        // A shared formula's dependent has no text of its own: it read as before (same row, same column).
        row.formulas[c] =
          cell.formula !== '' ? cell.formula : old.formulas.get((number - old.headerRow - 1) * oldWidth + c);
      }
      if (!decodeCell(cell, ctx, numberFormats, decoded)) return;
      const value =
        decoded.kind === Kind.Number
          ? decoded.number
          : decoded.kind === Kind.Boolean
            ? decoded.number === 1
            : decoded.text;
      while (row.values.length < c) {
        row.values.push(null);
        row.codes.push(0);
        row.texts.push('');
      }
      row.values[c] = value;
      row.codes[c] = decoded.code;
      row.texts[c] = displayText(value, decoded.code, numberFormats.patterns);
    },
    reset: () => {
      row.values = [];
      row.codes = [];
      row.texts = [];
      row.formulas = [];
    },
  });
  return row;
}
