/**
 * Text that reads as a number, as Excel reads it in a criterion, in arithmetic and in a date or count argument:
 * plain numbers with a sign, `$`, thousands commas, decimals, an exponent or `%`, and dates and times.
 */
import { parseIsoDateTime } from '../../input.ts';
import { workbookDateSystem } from '../../serial-dates.ts';

/** Plain numbers as Excel reads them from text: sign, `$`, thousands commas, decimals, exponent, `%`. */
const NUMBER = /^([+-])?\$?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?(%)?$/;
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/;
const MAY_BE_NUMBER = /^[\s+\-$.\d]/;

/** The number text reads as, Excel's way (the forms above and dates), or undefined. */
export function numberFromText(text: string): number | undefined {
  if (!MAY_BE_NUMBER.test(text) || text.length > 64) return undefined;
  const trimmed = text.trim();
  const number = NUMBER.exec(trimmed);
  if (number) {
    const [, sign, digits, exponent, percent] = number;
    const n = Number(`${sign ?? ''}${digits!.replace(/,/g, '')}${exponent ? `e${exponent}` : ''}`);
    if (!Number.isFinite(n)) return undefined;
    return percent ? n / 100 : n;
  }
  // Dates and times as the API reads them (input.ts: ISO 8601, `HH:MM`), and Excel's en-US `M/D/YYYY`.
  const us = US_DATE.exec(trimmed);
  const iso = us ? `${us[3]}-${us[1]!.padStart(2, '0')}-${us[2]!.padStart(2, '0')}` : trimmed;
  const date = parseIsoDateTime(iso);
  return date ? (workbookDateSystem(false).serial(date.value, date.timeOnly) ?? undefined) : undefined;
}
