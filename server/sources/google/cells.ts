/**
 * Google cells as the API returns them (docs/api.md, "Google Sheets"): typed from the cell's own value type and its number format,
 * never guessed from the text. A number under a DATE / TIME / DATE_TIME format is a date: its serial number
 * (days since 1899-12-30, without Excel's 1900-02-29) becomes ISO 8601 in Google's date system (serial-dates.ts).
 */

import { GOOGLE_SHEETS } from '../serial-dates.ts';
import type { CellValue } from '../source.ts';

/** The parts of a Sheets `CellData` the reader asks for. */
export interface GoogleCellData {
  effectiveValue?: {
    numberValue?: number | null;
    stringValue?: string | null;
    boolValue?: boolean | null;
    errorValue?: { type?: string | null; message?: string | null } | null;
  } | null;
  formattedValue?: string | null;
  userEnteredValue?: { formulaValue?: string | null } | null;
  effectiveFormat?: { numberFormat?: GoogleNumberFormat | null } | null;
  userEnteredFormat?: { numberFormat?: GoogleNumberFormat | null } | null;
}

export interface GoogleNumberFormat {
  type?: string | null;
  pattern?: string | null;
}

export interface TypedCell {
  typed: CellValue;
  formatted: string;
  /** The formula the cell holds (`=B2*C2`), for `?values=formula`. */
  formula?: string;
}

const DATE_TYPES = new Set(['DATE', 'TIME', 'DATE_TIME']);

function formatType(cell: GoogleCellData): string | undefined {
  // What the sheet applies (effective) wins over what was typed in (userEntered), e.g. a formula's date result.
  return cell.effectiveFormat?.numberFormat?.type ?? cell.userEnteredFormat?.numberFormat?.type ?? undefined;
}

/** The number format of a cell formatted as a date, time or date-time (empty or not), else undefined. */
export function dateFormatOf(cell: GoogleCellData | null | undefined): GoogleNumberFormat | undefined {
  const format = cell?.effectiveFormat?.numberFormat ?? cell?.userEnteredFormat?.numberFormat ?? undefined;
  return format?.type && DATE_TYPES.has(format.type) ? format : undefined;
}

/** Whether a cell holds a number (which, under a date format, reads as a date). */
export const holdsNumber = (cell: GoogleCellData | null | undefined): boolean =>
  typeof cell?.effectiveValue?.numberValue === 'number';

/** One cell -> typed + formatted (and its formula, if it has one), or null when it is empty. */
export function typeCell(cell: GoogleCellData | null | undefined): TypedCell | null {
  const typed = typeValue(cell);
  const formula = cell?.userEnteredValue?.formulaValue;
  return typed && typeof formula === 'string' ? { ...typed, formula } : typed;
}

function typeValue(cell: GoogleCellData | null | undefined): TypedCell | null {
  const value = cell?.effectiveValue;
  if (!cell || !value) return null;
  const shown = cell.formattedValue ?? '';
  if (typeof value.numberValue === 'number') {
    const type = formatType(cell);
    if (type && DATE_TYPES.has(type)) {
      const iso = GOOGLE_SHEETS.iso(value.numberValue);
      if (iso !== null) return { typed: iso, formatted: shown };
    }
    return { typed: value.numberValue, formatted: shown || String(value.numberValue) };
  }
  if (typeof value.boolValue === 'boolean') {
    return { typed: value.boolValue, formatted: shown || (value.boolValue ? 'TRUE' : 'FALSE') };
  }
  if (value.errorValue) {
    // An error shows as its code (#DIV/0!, #REF!), as in the workbook kind.
    const text = shown || value.errorValue.type || '#ERROR!';
    return { typed: text, formatted: text };
  }
  if (typeof value.stringValue === 'string') {
    if (value.stringValue === '') return null;
    return { typed: value.stringValue, formatted: shown || value.stringValue };
  }
  return null;
}
