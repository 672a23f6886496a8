/**
 * The byte primitives of the worksheet scanner (sheet-scan.ts): character codes, XML entities, digit runs,
 * numbers and cell types read in place from the part's UTF-8 bytes. `Unsupported` is what the scanner throws
 * for anything outside the grammar it reads, sending the part to the full XML parser.
 */

export class Unsupported extends Error {}

export const LT = 60;
export const GT = 62;
export const SLASH = 47;
export const COLON = 58;
export const BANG = 33;
export const QUESTION = 63;
export const DOLLAR = 36;
export const QUOTE = 34;
export const APOS = 39;
export const EQUALS = 61;
export const AMP = 38;

export function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

export function isNameEnd(code: number): boolean {
  return code === EQUALS || isSpace(code);
}

/**
 * From just after an attribute's name (spaces, `=`, spaces, an opening quote): where its value starts. Its end
 * is the next quote of the same kind (attributeValueEnd).
 */
export function attributeValueStart(b: Uint8Array, from: number, end: number): number {
  let p = from;
  while (p < end && isSpace(b[p]!)) p++;
  if (b[p] !== EQUALS) throw new Unsupported();
  p++;
  while (p < end && isSpace(b[p]!)) p++;
  const quote = b[p];
  if (quote !== QUOTE && quote !== APOS) throw new Unsupported();
  return p + 1;
}

/** The closing quote of the value that starts at `valueStart`, before the tag's `end`. */
export function attributeValueEnd(b: Uint8Array, valueStart: number, end: number): number {
  const quote = b[valueStart - 1];
  let p = valueStart;
  while (p < end && b[p] !== quote) p++;
  if (p >= end) throw new Unsupported();
  return p;
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML's five named entities and character references; anything else is not for this scanner. */
export function decodeEntities(text: string): string {
  return text.replace(/&([^;&]*);?/g, (whole, body: string) => {
    if (!whole.endsWith(';')) throw new Unsupported();
    const named = NAMED[body];
    if (named !== undefined) return named;
    const code = body.startsWith('#x')
      ? Number.parseInt(body.slice(2), 16)
      : body.startsWith('#')
        ? Number.parseInt(body.slice(1), 10)
        : Number.NaN;
    if (!Number.isInteger(code) || code < 0 || code > 0x10ffff) throw new Unsupported();
    return String.fromCodePoint(code);
  });
}

/** The text of bytes `from`..`to` (UTF-8), entities decoded. */
export function textOf(b: Buffer, from: number, to: number): string {
  const raw = b.toString('utf8', from, to);
  return raw.includes('&') ? decodeEntities(raw) : raw;
}

/** A run of ASCII digits as a number; -1 when there is anything else, 0 when there is nothing. */
export function digits(b: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let p = from; p < to; p++) {
    const d = b[p]! - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

const POWERS_OF_TEN = Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * A plain decimal (`-12`, `7.99`, `.5`) of at most 15 digits, read exactly as `Number.parseFloat` reads it;
 * NaN for anything else (an exponent, more digits, any other character), which the caller reads as text.
 * Exact because both the digits and the power of ten are doubles without rounding, and one IEEE division
 * rounds their quotient correctly: the nearest double to the decimal, which is what parseFloat gives.
 */
export function plainNumber(b: Uint8Array, from: number, to: number): number {
  let p = from;
  const negative = b[p] === 45;
  if (negative) p++;
  let mantissa = 0;
  let count = 0;
  let decimals = 0;
  let dot = false;
  for (; p < to; p++) {
    const code = b[p]!;
    if (code >= 48 && code <= 57) {
      mantissa = mantissa * 10 + (code - 48);
      count++;
      if (dot) decimals++;
    } else if (code === 46 && !dot) dot = true;
    else return Number.NaN;
  }
  if (count === 0 || count > 15) return Number.NaN;
  const value = decimals === 0 ? mantissa : mantissa / POWERS_OF_TEN[decimals]!;
  return negative ? -value : value;
}

const CELL_TYPES = ['s', 'n', 'b', 'e', 'str', 'inlineStr', 'd'];
const CELL_TYPE_BYTES = CELL_TYPES.map((t) => Buffer.from(t, 'latin1'));

/** A cell's `t`, as one of the shared constant strings when it is a known type. */
export function cellType(b: Buffer, from: number, to: number): string {
  for (let i = 0; i < CELL_TYPES.length; i++)
    if (sameBytes(b, from, to, CELL_TYPE_BYTES[i]!)) return CELL_TYPES[i]!;
  return textOf(b, from, to);
}

/** Whether bytes `from`..`to` of `b` are `name`. */
export function sameBytes(b: Uint8Array, from: number, to: number, name: Uint8Array): boolean {
  if (to - from !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (b[from + i] !== name[i]) return false;
  return true;
}

/** Attribute `name` of the tag whose attributes are bytes `start`..`end` (entities decoded), or undefined. */
export function attributeOf(b: Buffer, start: number, end: number, name: Uint8Array): string | undefined {
  let at = start;
  while (at < end) {
    while (at < end && isSpace(b[at]!)) at++;
    if (at >= end) break;
    const nameStart = at;
    while (at < end && !isNameEnd(b[at]!)) at++;
    const nameEnd = at;
    const valueStart = attributeValueStart(b, at, end);
    const valueEnd = attributeValueEnd(b, valueStart, end);
    if (sameBytes(b, nameStart, nameEnd, name)) return textOf(b, valueStart, valueEnd);
    at = valueEnd + 1;
  }
  return undefined;
}

/** What the `r` of a row or a cell says: a row's number, or a cell's column and row (0: not given). */
export interface Ref {
  rowAttr: number;
  refColumn: number;
  refRow: number;
}

/** `r` of a row (`12`) or a cell (`B12`, `$B$12`), into `out`, without a copy. */
export function readRef(b: Uint8Array, from: number, to: number, out: Ref): void {
  let p = from;
  if (b[p] === DOLLAR) p++;
  let column = 0;
  let letters = 0;
  for (; p < to; p++) {
    const code = b[p]! | 0x20;
    if (code < 97 || code > 122) break;
    column = column * 26 + (code - 96);
    letters++;
  }
  if (b[p] === DOLLAR) p++;
  const row = digits(b, p, to);
  if (letters === 0) {
    out.rowAttr = row;
    return;
  }
  if (letters > 3 || row <= 0) return; // not a reference: the cell follows the one before
  out.refColumn = column;
  out.refRow = row;
}
