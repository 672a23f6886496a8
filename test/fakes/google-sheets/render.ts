// How a cell reads back under valueRenderOption / dateTimeRenderOption.
// FORMATTED_VALUE: everything a string, formatted with the cell's number format.
// UNFORMATTED_VALUE: numbers and booleans as JSON; dates as serial numbers unless FORMATTED_STRING.
// FORMULA: formula text for formula cells, otherwise as UNFORMATTED_VALUE.
import { createRequire } from 'node:module';
import { format as formatDate } from 'numfmt';
import { type Cell, isDateLike, isEmptyCell, type NumberFormat } from './cell.ts';
import { badRequest } from './errors.ts';

const require = createRequire(import.meta.url);
const SSF = require('fast-formula-parser/ssf/ssf.js') as {
  format: (pattern: string, value: number) => string;
};

export type ValueRender = 'FORMATTED_VALUE' | 'UNFORMATTED_VALUE' | 'FORMULA';
export type DateTimeRender = 'SERIAL_NUMBER' | 'FORMATTED_STRING';

export function parseValueRender(value: unknown): ValueRender {
  if (value === undefined || value === null || value === '') return 'FORMATTED_VALUE';
  if (value === 'FORMATTED_VALUE' || value === 'UNFORMATTED_VALUE' || value === 'FORMULA') return value;
  throw badRequest(
    `Invalid value at 'value_render_option' (type.googleapis.com/google.apps.sheets.v4.ValueRenderOption), "${String(value)}"`,
  );
}

export function parseDateTimeRender(value: unknown): DateTimeRender {
  if (value === undefined || value === null || value === '') return 'SERIAL_NUMBER';
  if (value === 'SERIAL_NUMBER' || value === 'FORMATTED_STRING') return value;
  throw badRequest(
    `Invalid value at 'date_time_render_option' (type.googleapis.com/google.apps.sheets.v4.DateTimeRenderOption), "${String(value)}"`,
  );
}

/** Sheets' "Automatic" format: up to 15 significant digits, exponent only for huge or tiny values. */
export function formatGeneral(n: number): string {
  if (!Number.isFinite(n)) return '#NUM!';
  const rounded = Number(n.toPrecision(15));
  const text = String(rounded);
  if (!text.includes('e')) return text;
  const [mantissa, exponent] = rounded.toExponential().split('e') as [string, string];
  const sign = exponent.startsWith('-') ? '-' : '+';
  return `${mantissa.toUpperCase()}E${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
}

export function formatNumber(n: number, format: NumberFormat | undefined): string {
  if (!format) return formatGeneral(n);
  try {
    // Sheets counts dates from 1899-12-30 without Excel's 1900-02-29 (serial 42 is 1900-02-10), which SSF
    // renders as Excel does; numfmt renders it as Sheets does.
    if (isDateLike(format)) return formatDate(format.pattern, n, { leap1900: false });
    return SSF.format(format.pattern, n);
  } catch {
    return formatGeneral(n);
  }
}

export function renderCell(cell: Cell | undefined, render: ValueRender, dateTime: DateTimeRender): unknown {
  if (!cell || isEmptyCell(cell)) return '';
  if (render === 'FORMULA' && cell.formula !== undefined) return cell.formula;
  const v = cell.value;
  switch (v.kind) {
    case 'string':
      return v.value;
    case 'error':
      return v.value;
    case 'bool':
      return render === 'FORMATTED_VALUE' ? (v.value ? 'TRUE' : 'FALSE') : v.value;
    case 'number':
      if (render === 'FORMATTED_VALUE') return formatNumber(v.value, cell.format);
      if (dateTime === 'FORMATTED_STRING' && isDateLike(cell.format))
        return formatNumber(v.value, cell.format);
      return v.value;
  }
}

/** Empty for trimming purposes: what reads back as "". */
export const rendersEmpty = (value: unknown): boolean =>
  value === '' || value === undefined || value === null;
