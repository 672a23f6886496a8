/**
 * The common CSV fields typed from their bytes, without making a string (csv-tab-builder.ts): a canonical number
 * and `true`/`false`; anything else is the builder's to type.
 */
const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);
export const QUOTE_MARK = 0x27; // ', the formula guard's marker
export const MINUS = 0x2d;
const DOT = 0x2e;
export const ZERO = 0x30;
/** A field `fastNumber` leaves to `readCsvCell`, or reads as text (no number it returns is infinite). */
export const SLOW = Number.POSITIVE_INFINITY;
export const TEXT = Number.NEGATIVE_INFINITY;

/**
 * The value of a canonical number (`-?(0|[1-9]\d*)(\.\d+)?`) of up to 15 digits whose text is what the value
 * prints as (no trailing zero after the point, not `-0`, not so small it prints with an exponent): 15 digits and
 * a power of ten are exact doubles, so their quotient is the correctly rounded value `Number(text)` gives. `TEXT`
 * for a field that is no number; `SLOW` for any other number.
 */
export function fastNumber(buf: Buffer, start: number, end: number): number {
  let i = start;
  const negative = buf[i] === MINUS;
  if (negative) i++;
  if (i >= end) return TEXT;
  let m = 0;
  let digits = 0;
  const first = buf[i]! - ZERO;
  if (first === 0) {
    i++;
    digits = 1;
  } else if (first > 0 && first <= 9) {
    while (i < end) {
      const d = buf[i]! - ZERO;
      if (d < 0 || d > 9) break;
      m = m * 10 + d;
      digits++;
      i++;
    }
  } else return TEXT;
  let k = 0;
  if (i < end && buf[i] === DOT) {
    i++;
    while (i < end) {
      const d = buf[i]! - ZERO;
      if (d < 0 || d > 9) break;
      m = m * 10 + d;
      digits++;
      k++;
      i++;
    }
    if (k === 0) return TEXT;
    if (buf[i - 1] === ZERO) return i === end ? SLOW : afterDigits(buf[i]!);
  }
  if (i < end) return afterDigits(buf[i]!);
  if (digits > 15) return SLOW;
  const value = k > 0 ? m / POW10[k]! : m;
  if (value === 0 ? negative : value < 1e-6) return SLOW;
  return negative ? -value : value;
}

/** After the digits: an exponent makes it a number only `Number` reads; anything else makes it text. */
function afterDigits(next: number): number {
  return next === 0x65 || next === 0x45 ? SLOW : TEXT;
}

/** What `booleanOf` finds. */
export const NOT_BOOLEAN = 0;
export const MIXED_CASE = 1;
export const LOWER = 2;
export const UPPER = 3;

/** Whether the field is `true`/`false`, and in which case (its value: its length). */
export function booleanOf(buf: Buffer, start: number, end: number): number {
  const length = end - start;
  const word = length === 4 ? 'true' : length === 5 ? 'false' : null;
  if (!word) return NOT_BOOLEAN;
  let lower = 0;
  for (let i = 0; i < length; i++) {
    const b = buf[start + i]!;
    const w = word.charCodeAt(i);
    if (b === w) lower++;
    else if (b !== w - 0x20) return NOT_BOOLEAN;
  }
  if (lower !== 0 && lower !== length) return MIXED_CASE;
  return lower === 0 ? UPPER : LOWER;
}
