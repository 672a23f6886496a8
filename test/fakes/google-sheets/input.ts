// How written values become cells: RAW keeps strings as strings; USER_ENTERED parses them as
// the Sheets UI would (formulas, numbers with grouping, percents, currency, dates, booleans,
// a leading apostrophe forcing text). `null` means "leave the cell alone"; "" clears it.
import type { Cell, NumberFormat } from './cell.ts';
import { badRequest } from './errors.ts';
import { isValidDate, serialFromParts } from './serial-date.ts';

export type InputOption = 'RAW' | 'USER_ENTERED';

export const SKIP = Symbol('skip');

export function parseInputOption(value: unknown): InputOption {
  if (value === 'RAW' || value === 'USER_ENTERED') return value;
  if (value === undefined || value === null || value === '' || value === 'INPUT_VALUE_OPTION_UNSPECIFIED')
    throw badRequest("'valueInputOption' is required but not specified");
  throw badRequest(
    `Invalid value at 'value_input_option' (type.googleapis.com/google.apps.sheets.v4.ValueInputOption), "${String(value)}"`,
  );
}

/** A cell to write, `undefined` to clear, or SKIP for null input. */
export function inputToCell(input: unknown, option: InputOption): Cell | undefined | typeof SKIP {
  if (input === null || input === undefined) return SKIP;
  if (typeof input === 'number') return { value: { kind: 'number', value: input } };
  if (typeof input === 'boolean') return { value: { kind: 'bool', value: input } };
  if (typeof input !== 'string') throw badRequest(`Invalid values: ${JSON.stringify(input)}`);
  if (input === '') return undefined;
  if (option === 'RAW') return { value: { kind: 'string', value: input } };
  return parseUserEntered(input);
}

const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const GROUPED_NUMBER = /^([+-]?)(\d{1,3}(?:,\d{3})+)(\.\d+)?$/;
const PERCENT = /^([+-]?(?:\d+\.?\d*|\.\d+))%$/;
const CURRENCY = /^(-?)\$\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?$/;
const ISO_DATE = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

const decimalsPattern = (fraction: string | undefined): string =>
  fraction && fraction.length > 1 ? `.${'0'.repeat(fraction.length - 1)}` : '';

function numberCell(value: number, format?: NumberFormat): Cell {
  return format ? { value: { kind: 'number', value }, format } : { value: { kind: 'number', value } };
}

export function parseUserEntered(text: string): Cell {
  if (text.startsWith("'")) return { value: { kind: 'string', value: text.slice(1) } };
  if (text.startsWith('=') && text.length > 1) return { value: { kind: 'number', value: 0 }, formula: text };
  const t = text.trim();
  if (/^(true|false)$/i.test(t)) return { value: { kind: 'bool', value: t.toLowerCase() === 'true' } };
  if (PLAIN_NUMBER.test(t)) {
    const scientific = /[eE]/.test(t);
    return numberCell(Number(t), scientific ? { type: 'NUMBER', pattern: '0.00E+00' } : undefined);
  }
  const grouped = GROUPED_NUMBER.exec(t);
  if (grouped) {
    const value = Number(`${grouped[1]}${(grouped[2] ?? '').replace(/,/g, '')}${grouped[3] ?? ''}`);
    return numberCell(value, { type: 'NUMBER', pattern: `#,##0${decimalsPattern(grouped[3])}` });
  }
  const percent = PERCENT.exec(t);
  if (percent) {
    const digits = percent[1] ?? '0';
    const fraction = digits.includes('.') ? digits.slice(digits.indexOf('.')) : undefined;
    return numberCell(Number(digits) / 100, { type: 'PERCENT', pattern: `0${decimalsPattern(fraction)}%` });
  }
  const currency = CURRENCY.exec(t);
  if (currency) {
    const value = Number(`${currency[1]}${(currency[2] ?? '').replace(/,/g, '')}${currency[3] ?? ''}`);
    return numberCell(value, {
      type: 'CURRENCY',
      pattern: `"$"#,##0${decimalsPattern(currency[3]) || '.00'}`,
    });
  }
  const iso = ISO_DATE.exec(t);
  if (iso) {
    const cell = dateCell(Number(iso[1]), Number(iso[2]), Number(iso[3]), iso.slice(4), 'yyyy-mm-dd');
    if (cell) return cell;
  }
  const us = US_DATE.exec(t);
  if (us) {
    const cell = dateCell(Number(us[3]), Number(us[1]), Number(us[2]), us.slice(4), 'm/d/yyyy');
    if (cell) return cell;
  }
  const time = TIME.exec(t);
  if (time && Number(time[1]) < 24) {
    const seconds = Number(time[1]) * 3600 + Number(time[2]) * 60 + Number(time[3] ?? 0);
    return numberCell(seconds / 86400, { type: 'TIME', pattern: 'h:mm:ss AM/PM' });
  }
  return { value: { kind: 'string', value: text } };
}

function dateCell(
  y: number,
  m: number,
  d: number,
  time: (string | undefined)[],
  datePattern: string,
): Cell | undefined {
  if (!isValidDate(y, m, d)) return undefined;
  const [hh, mm, ss] = time;
  if (hh === undefined) return numberCell(serialFromParts(y, m, d), { type: 'DATE', pattern: datePattern });
  const serial = serialFromParts(y, m, d, Number(hh), Number(mm), Number(ss ?? 0));
  return numberCell(serial, { type: 'DATE_TIME', pattern: `${datePattern} h:mm:ss` });
}
