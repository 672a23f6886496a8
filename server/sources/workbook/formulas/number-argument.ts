/**
 * One argument read as a number, the two ways Excel's functions read one:
 * - `numberOf`, its own functions (ROUND, TIME, HOUR): a blank is 0, a logical value 1 or 0, text that reads as
 *   a number (number-text.ts) that number, other text #VALUE!, an error itself; a range or an array given where
 *   one value is wanted is read by its first cell;
 * - `wholeOf` and `dayOf`, the functions that came from its Analysis ToolPak (EDATE, WORKDAY): the same, except
 *   that a logical value or a range is #VALUE!, and the number is taken toward zero; a day outside 0 to 9999-12-31 is #NUM!.
 */
import { numberFromText } from './number-text.ts';
import { type FormulaErrorValue, formulaLibrary } from './parser.ts';

/** The last day Excel holds, 9999-12-31. */
export const LAST_SERIAL = 2_958_465;

const errors = () => formulaLibrary().FormulaError;

export const isFormulaError = (v: unknown): v is FormulaErrorValue => v instanceof errors();

/** A number of an argument the parser hands over as it is, or of its first cell. */
function plainNumber(v: unknown, logical: boolean): number | FormulaErrorValue {
  const single = Array.isArray(v) ? (Array.isArray(v[0]) ? v[0][0] : v[0]) : v;
  if (isFormulaError(single)) return single;
  const n =
    single === null || single === undefined
      ? 0
      : typeof single === 'number'
        ? single
        : typeof single === 'boolean' && logical
          ? Number(single)
          : typeof single === 'string'
            ? numberFromText(single)
            : undefined;
  return n === undefined || !Number.isFinite(n) ? errors().VALUE : n;
}

export const numberOf = (v: unknown): number | FormulaErrorValue => plainNumber(v, true);

/** A value as a whole number (toward zero), as the ToolPak's functions read dates and counts, or #VALUE!. */
export function wholeOf(v: unknown): number | FormulaErrorValue {
  if (Array.isArray(v)) return errors().VALUE;
  const n = plainNumber(v, false);
  return isFormulaError(n) ? n : Math.trunc(n);
}

/** A value as a serial day, or the error Excel gives for it (#NUM! outside 0 to 9999-12-31). */
export function dayOf(v: unknown): number | FormulaErrorValue {
  const day = wholeOf(v);
  return isFormulaError(day) || (day >= 0 && day <= LAST_SERIAL) ? day : errors().NUM;
}
