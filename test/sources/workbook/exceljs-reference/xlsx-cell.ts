/**
 * One ExcelJS cell -> `{ typed, formatted }` with the service's rules (dates as ISO 8601 from the UTC parts,
 * formulas as their cached result, rich text flattened): the reference engine's cell reader, which the parity
 * tests compare the surgical engine's reading with.
 */
import ExcelJS from 'exceljs';
import { EXCEL_1900 } from '../../../../server/sources/serial-dates.ts';
import type { GridCell } from '../../../../server/sources/tab.ts';
import { decodeCellText } from '../../../../server/sources/workbook/ooxml-text.ts';
import { formatValue, isDateFormat, isGeneralFormat } from '../../../../server/sources/workbook/values.ts';

/** What ExcelJS gives a date cell that has no number format of its own when it saves (numFmtId 14). */
const EXCELJS_DEFAULT_DATE_FORMAT = 'mm-dd-yy';

const T = ExcelJS.ValueType;

/** ExcelJS's own serial of a Date it read (days since 1899-12-30: the file's serial in the 1900 system). */
const excelJsSerial = (d: Date): number => (d.getTime() - Date.UTC(1899, 11, 30)) / 86_400_000;

function numberCell(n: number, numFmt: string | undefined): GridCell | null {
  // A number under a date format is a date to Excel (and to ExcelJS after a reload), so type it as one.
  if (isDateFormat(numFmt)) return dateCell(n, numFmt);
  return { typed: n, formatted: formatValue(numFmt, n) };
}

/** A date cell by the service's rules: Excel's 1900 system, a serial it shows as no date reads as its number. */
function dateCell(serial: number, numFmt: string | undefined): GridCell | null {
  if (!Number.isFinite(serial)) return null;
  const iso = EXCEL_1900.iso(serial);
  const pattern = iso !== null && isGeneralFormat(numFmt) ? EXCELJS_DEFAULT_DATE_FORMAT : numFmt;
  // numfmt is given the serial number, not the Date: a Date would be shifted by the local time zone.
  return { typed: iso ?? serial, formatted: formatValue(pattern, serial) };
}

/** Text from the file, with OOXML's `_xHHHH_` escapes undone (CSV text has none: see readCsvCell). */
function textCell(s: string): GridCell | null {
  if (s === '') return null;
  const text = decodeCellText(s);
  return { typed: text, formatted: text };
}

interface RichTextLike {
  richText: { text: string }[];
}

function plainText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && Array.isArray((value as RichTextLike).richText)) {
    return (value as RichTextLike).richText.map((run) => run.text ?? '').join('');
  }
  return value === null || value === undefined ? '' : String(value);
}

/** A formula's cached result, typed like a literal cell of the same kind; no cached result -> empty. */
function resultCell(result: unknown, numFmt: string | undefined): GridCell | null {
  if (result === null || result === undefined) return null;
  if (typeof result === 'number') return Number.isFinite(result) ? numberCell(result, numFmt) : null;
  if (typeof result === 'boolean') return { typed: result, formatted: result ? 'TRUE' : 'FALSE' };
  if (typeof result === 'string') return textCell(result);
  if (result instanceof Date) return dateCell(excelJsSerial(result), numFmt);
  if (typeof result === 'object' && 'error' in result) {
    const error = String((result as { error: unknown }).error);
    return { typed: error, formatted: error };
  }
  return textCell(plainText(result));
}

/** One ExcelJS cell -> typed + formatted, or null when the cell is empty (merged non-anchor cells included). */
export function readXlsxCell(cell: ExcelJS.Cell): GridCell | null {
  const numFmt = cell.numFmt;
  switch (cell.type) {
    case T.Null:
    case T.Merge: // only the top-left cell of a merge holds the value, as in Excel and Google Sheets
      return null;
    case T.Number:
      return numberCell(cell.value as number, numFmt);
    case T.String:
    case T.SharedString:
      return textCell(plainText(cell.value));
    case T.Date:
      return dateCell(excelJsSerial(cell.value as Date), numFmt);
    case T.Boolean:
      return { typed: cell.value as boolean, formatted: cell.value ? 'TRUE' : 'FALSE' };
    case T.RichText:
      return textCell(plainText(cell.value));
    case T.Hyperlink:
      return textCell(plainText((cell.value as { text?: unknown }).text));
    case T.Error: {
      const error = String((cell.value as { error: unknown }).error);
      return { typed: error, formatted: error };
    }
    case T.Formula:
      return resultCell(cell.result, numFmt);
    default:
      return textCell(cell.text);
  }
}
