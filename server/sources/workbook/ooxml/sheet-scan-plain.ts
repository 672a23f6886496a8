/**
 * The commonest cell of a worksheet, read in one pass over its bytes: `<c r="B2" s="3" t="s"><v>10</v></c>`,
 * a plain number, a shared string's index or a boolean with a reference, maybe a style, and no formula. Nine cells in ten
 * of a typical sheet are this, and reading them without the general tag walk (sheet-scan.ts) is what makes a
 * million-row sheet quick. Anything else (another spelling, a formula, an inline string, an entity, a prefix)
 * answers -1, and the general walk reads that cell instead: so this only ever reads a cell the same way, faster.
 */
import { digits, EQUALS, GT, LT, plainNumber, QUOTE, SLASH } from './sheet-scan-text.ts';

/** What `readPlainCell` found. */
export interface PlainCell {
  column: number;
  row: number;
  style: number;
  /** What `value` is: 0 a number, 1 a shared string's index (`t="s"`), 2 a boolean (`t="b"`, 0 or not). */
  kind: number;
  value: number;
}

const SPACE = 32;
const V = 118;
const C = 99;

/**
 * The plain cell whose `<` is at `lt` (before `end`): its fields in `out`, and where it ends; -1 when the cell
 * is not plain. A number is read by `plainNumber` (sheet-scan-text.ts): at most 15 digits, exactly.
 */
export function readPlainCell(b: Uint8Array, lt: number, end: number, out: PlainCell): number {
  let p = lt + 2;
  if (b[p] !== SPACE) return -1;
  let column = 0;
  let row = 0;
  let style = 0;
  let type = 0; // 0: none, 1: `n`, 2: `s`, 3: `b`
  for (;;) {
    while (b[p] === SPACE) p++;
    if (b[p] === GT) break;
    const nameStart = p;
    let code = b[p];
    while (code !== EQUALS) {
      if (code === SPACE || code === GT || code === SLASH || code === undefined || code < SPACE) return -1;
      code = b[++p];
    }
    const nameLength = p - nameStart;
    if (b[p + 1] !== QUOTE) return -1;
    p += 2;
    const valueStart = p;
    while (p < end && b[p] !== QUOTE) p++;
    if (p >= end) return -1;
    const valueEnd = p++;
    if (nameLength !== 1) continue;
    const name = b[nameStart];
    if (name === 114) {
      // r: one to three letters, then a row number
      let q = valueStart;
      for (; q < valueEnd; q++) {
        const letter = b[q]! | 0x20;
        if (letter < 97 || letter > 122) break;
        column = column * 26 + (letter - 96);
      }
      if (q === valueStart || q - valueStart > 3 || q === valueEnd) return -1;
      row = digits(b, q, valueEnd);
      if (row <= 0) return -1;
    } else if (name === 115) {
      if (valueEnd === valueStart || valueEnd - valueStart > 5) return -1;
      style = digits(b, valueStart, valueEnd);
      if (style < 0) return -1;
    } else if (name === 116) {
      if (valueEnd - valueStart !== 1) return -1;
      const t = b[valueStart];
      if (t === 115) type = 2;
      else if (t === 110) type = 1;
      else if (t === 98) type = 3;
      else return -1;
    }
  }
  if (column === 0 || b[p + 1] !== LT || b[p + 2] !== V || b[p + 3] !== GT) return -1;
  p += 4;
  const valueStart = p;
  while (p < end && b[p] !== LT) p++;
  // A number as plainNumber reads it; a string's index or a boolean as at most nine bare digits.
  const value =
    type < 2
      ? plainNumber(b, valueStart, p)
      : p > valueStart && p - valueStart <= 9
        ? digits(b, valueStart, p)
        : -1;
  if (type < 2 ? Number.isNaN(value) : value < 0) return -1;
  if (p + 8 > end) return -1;
  if (b[p + 1] !== SLASH || b[p + 2] !== V || b[p + 3] !== GT) return -1;
  if (b[p + 4] !== LT || b[p + 5] !== SLASH || b[p + 6] !== C || b[p + 7] !== GT) return -1;
  out.column = column;
  out.row = row;
  out.style = style;
  out.kind = type < 2 ? 0 : type - 1;
  out.value = value;
  return p + 8;
}
