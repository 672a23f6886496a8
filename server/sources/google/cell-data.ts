/**
 * What a written value becomes in a Google cell, by the same rules as every kind (sources/input.ts): JSON types
 * as they are, "=..." a formula only for keys that may write formulas (otherwise it is stored as text and never
 * runs), and with `input=user_entered` the string parsed as typing would be. Values are sent as typed CellData
 * (stringValue, numberValue, ...), so no string is ever parsed by Google and no `'` escape is needed.
 */
import type { sheets_v4 } from '@googleapis/sheets';
import {
  DATE_FORMAT,
  DATE_TIME_FORMAT,
  interpretInput,
  type ParsedInput,
  parseIsoDateTime,
} from '../input.ts';
import { GOOGLE_SHEETS } from '../serial-dates.ts';
import type { CellInput, WriteOptions } from '../source.ts';
import type { GoogleNumberFormat } from './cells.ts';

/**
 * Where a cell write lands, for dates: the cell's own date format when it reads as a date, else its column's
 * (asked only for ISO text or a date). ISO 8601 text written there is a date (sources/date-cells.ts).
 */
export interface DatePlace {
  cell: GoogleNumberFormat | undefined;
  column: () => GoogleNumberFormat | undefined;
}

export interface GoogleCellWrite {
  data: sheets_v4.Schema$CellData;
  /** The write sets a number format too (percent, currency, date). */
  formatted: boolean;
  /** The same value as a RAW `values.append` would take it, or undefined when only CellData can say it. */
  raw: string | number | boolean | null | undefined;
}

function numberFormatType(pattern: string): string {
  if (pattern.includes('%')) return 'PERCENT';
  if (pattern.includes('$')) return 'CURRENCY';
  return 'NUMBER';
}

export function cellWrite(value: CellInput, options: WriteOptions, place?: DatePlace): GoogleCellWrite {
  let parsed = interpretInput(value, options);
  let columnFormat: GoogleNumberFormat | undefined;
  if (place && (parsed.kind === 'text' || parsed.kind === 'date') && !place.cell)
    columnFormat = place.column();
  if (parsed.kind === 'text' && (place?.cell || columnFormat)) {
    const date = parseIsoDateTime(parsed.value);
    if (date) parsed = { kind: 'date', ...date };
  }
  switch (parsed.kind) {
    case 'empty':
      return { data: {}, formatted: false, raw: null };
    case 'number':
      if (parsed.numFmt) {
        return {
          data: {
            userEnteredValue: { numberValue: parsed.value },
            userEnteredFormat: {
              numberFormat: { type: numberFormatType(parsed.numFmt), pattern: parsed.numFmt },
            },
          },
          formatted: true,
          raw: undefined,
        };
      }
      return {
        data: { userEnteredValue: { numberValue: parsed.value } },
        formatted: false,
        raw: parsed.value,
      };
    case 'boolean':
      return { data: { userEnteredValue: { boolValue: parsed.value } }, formatted: false, raw: parsed.value };
    case 'date':
      return dateWrite(parsed, place, columnFormat);
    case 'formula':
      return {
        data: { userEnteredValue: { formulaValue: `=${parsed.formula}` } },
        formatted: false,
        raw: undefined,
      };
    case 'text':
      return {
        data: { userEnteredValue: { stringValue: parsed.value } },
        formatted: false,
        raw: parsed.value,
      };
  }
}

/** A date: a date cell keeps its own format; an empty cell of a date column takes the column's. */
function dateWrite(
  parsed: Extract<ParsedInput, { kind: 'date' }>,
  place: DatePlace | undefined,
  columnFormat: GoogleNumberFormat | undefined,
): GoogleCellWrite {
  const serial = GOOGLE_SHEETS.serial(parsed.value, parsed.timeOnly);
  // A date no serial reads back as (one on day zero would read as a bare time) stays the text it was given.
  if (serial === null) {
    return { data: { userEnteredValue: { stringValue: parsed.text } }, formatted: false, raw: parsed.text };
  }
  const numberValue = { numberValue: serial };
  if (place?.cell) return { data: { userEnteredValue: numberValue }, formatted: false, raw: undefined };
  const numberFormat = columnFormat ?? {
    type: parsed.hasTime ? 'DATE_TIME' : 'DATE',
    pattern: parsed.hasTime ? DATE_TIME_FORMAT : DATE_FORMAT,
  };
  return {
    data: { userEnteredValue: numberValue, userEnteredFormat: { numberFormat } },
    formatted: true,
    raw: undefined,
  };
}

/** The `fields` mask of an updateCells that writes these cells. */
export function fieldsFor(writes: readonly GoogleCellWrite[]): string {
  return writes.some((w) => w.formatted)
    ? 'userEnteredValue,userEnteredFormat.numberFormat'
    : 'userEnteredValue';
}
