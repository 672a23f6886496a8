/**
 * A run of rows moved up or down by a delete, renumbered in their UTF-8 bytes: each `<row r="N"` and each
 * `<c r="XN"` gets N - shift, and every other byte stays as it was. A delete in a large sheet moves every row
 * below it; doing this on bytes, without making strings or taking rows apart, renumbers the half million rows
 * below the middle of a full sheet in a fraction of a second (zlib's inflating and compressing them costs more).
 *
 * Only the form every writer uses is handled: no element prefix, `r` as the first attribute in double quotes,
 * upper-case column letters, and each cell naming its own row. Any other form of row or cell, or text that
 * could hide tags (comments, CDATA, processing instructions), answers null, and the caller renumbers the rows
 * the general way (row-xml.ts), which takes each row apart. So this only ever gives what that way gives,
 * except that it keeps `spans`, which a move leaves right (it names columns, not rows).
 *
 * Rows keep their numbers. Leaving `r` out (the format allows it, and Excel, openpyxl and LibreOffice read such
 * rows in order) would let a delete touch one piece, but readers such as ExcelJS take every row's number from
 * its `r` and would misplace the rows: docs/performance.md, "Deletes and the first write's read".
 */

export interface ShiftedRows {
  text: Uint8Array;
  /** How many UTF-16 units (here: bytes, since digits are ASCII) each row's text gained; negative for lost. */
  growth: Int32Array;
}

const LT = 0x3c;
const SLASH = 0x2f;
const GT = 0x3e;
const BANG = 0x21;
const QUESTION = 0x3f;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const EQUALS = 0x3d;
const LOWER_C = 0x63;
const LOWER_O = 0x6f;
const LOWER_R = 0x72;
const LOWER_W = 0x77;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const UPPER_A = 0x41;
const UPPER_Z = 0x5a;

/** What may follow an element's name: its name ends there. */
const endsName = (code: number | undefined) =>
  code === SPACE || code === TAB || code === LF || code === CR || code === SLASH || code === GT;

/** Where a piece's references are: each one's digits [start, end), and the row (0-based) it belongs to. */
interface References {
  count: number;
  starts: Int32Array;
  ends: Int32Array;
  owners: Int32Array;
  /** Each row's number in the text. */
  numbers: Int32Array;
}

/**
 * The `rows` rows of `src` (whole `<row>` elements, back to back) renumbered by `-shift`, or null when the
 * text is not in the handled form or does not hold exactly `rows` rows, each numbered above `shift`.
 */
export function shiftRowNumbers(src: Uint8Array, shift: number, rows: number): ShiftedRows | null {
  const text = new Uint8Array(src); // a copy (a Buffer's slice would be a view of the same bytes)
  const inPlace = shiftRowNumbersInPlace(text, shift, rows);
  if (inPlace === 'done') return { text, growth: new Int32Array(rows) };
  return inPlace === 'width changed' ? shiftRowNumbersResized(src, shift, rows) : null;
}

/**
 * `shiftRowNumbers` written over `bytes` itself, for a caller that owns them: most pieces keep every number's
 * width (a number loses a digit only across a power of ten), and their digits are written in the same pass that
 * finds them, without a copy. 'width changed' and 'not handled' leave `bytes` partly written: a caller that
 * still wants them renumbered reads them again (shiftRowNumbersResized).
 */
export function shiftRowNumbersInPlace(
  bytes: Uint8Array,
  shift: number,
  rows: number,
): 'done' | 'width changed' | 'not handled' {
  // Safe over the bytes it reads: each reference's digits are read whole before new ones are written there.
  const found = findReferences(bytes, shift, rows, bytes);
  return found === WIDTH_CHANGED ? 'width changed' : found === null ? 'not handled' : 'done';
}

/** `shiftRowNumbers` for rows some of whose numbers change width: the text is made again at its new length. */
export function shiftRowNumbersResized(src: Uint8Array, shift: number, rows: number): ShiftedRows | null {
  const refs = findReferences(src, shift, rows, null);
  if (refs === null || refs === WIDTH_CHANGED) return null;
  const digits = Array.from(refs.numbers, (number) => Buffer.from(String(number - shift), 'latin1'));
  const change = Int32Array.from(digits, (moved, row) => moved.length - widthOf(refs.numbers[row] as number));
  let size = src.length;
  for (let k = 0; k < refs.count; k++) size += change[refs.owners[k] as number] as number;
  const moved = new Uint8Array(size);
  let out = 0;
  let copied = 0;
  for (let k = 0; k < refs.count; k++) {
    const at = refs.starts[k] as number;
    moved.set(src.subarray(copied, at), out);
    out += at - copied;
    const number = digits[refs.owners[k] as number] as Buffer;
    moved.set(number, out);
    out += number.length;
    copied = refs.ends[k] as number;
  }
  moved.set(src.subarray(copied), out);
  // A row's growth counts each of its references: its own and its cells'.
  const growth = new Int32Array(rows);
  for (let k = 0; k < refs.count; k++) {
    const row = refs.owners[k] as number;
    growth[row] = (growth[row] as number) + (change[row] as number);
  }
  return { text: moved, growth };
}

const WIDTH_CHANGED = Symbol('a number changes its width');

const widthOf = (number: number) => String(number).length;

/**
 * The references of the handled form, in order; null at the first sign of any other form. With `text` (a copy
 * of `src`, or `src` itself), each reference's new digits are written there as it is found instead, and the answer is
 * WIDTH_CHANGED as soon as one would change width. One pass over the bytes, written for speed (a million-row
 * delete runs it over hundreds of megabytes): reads past the end give undefined, which every comparison
 * below treats as "no match".
 */
function findReferences(
  src: Uint8Array,
  shift: number,
  rows: number,
  text: Uint8Array | null,
): References | null | typeof WIDTH_CHANGED {
  const n = src.length;
  // Every reference takes at least 8 bytes (`<c r="A1"`, `<row r="1"`); written in place, none is kept.
  const capacity = text ? 0 : (n >> 3) + 1;
  const starts = new Int32Array(capacity);
  const ends = new Int32Array(capacity);
  const owners = new Int32Array(capacity);
  const numbers = new Int32Array(rows);
  let count = 0;
  let row = -1;
  let rowNumber = 0;
  let i = 0;
  while (i < n) {
    // The tightest loop of a delete: from one tag to the next.
    while (i < n && src[i] !== LT) i++;
    if (i === n) break;
    const b = src[i + 1];
    let p: number;
    if (b === LOWER_C) {
      const after = src[i + 2];
      if (after !== SPACE) {
        if (endsName(after)) return null; // a cell without `r`, or with another first attribute
        i += 2;
        continue;
      }
      if (row < 0 || src[i + 3] !== LOWER_R || src[i + 4] !== EQUALS || src[i + 5] !== QUOTE) return null;
      p = i + 6;
      let c = src[p];
      while (c !== undefined && c >= UPPER_A && c <= UPPER_Z) c = src[++p];
      if (p === i + 6 || p > i + 9) return null;
    } else if (b === LOWER_R && src[i + 2] === LOWER_O && src[i + 3] === LOWER_W) {
      const after = src[i + 4];
      if (after !== SPACE || src[i + 5] !== LOWER_R || src[i + 6] !== EQUALS || src[i + 7] !== QUOTE) {
        if (endsName(after)) return null;
        i += 4;
        continue;
      }
      p = i + 8;
      row++;
      if (row >= rows) return null;
    } else {
      if (b === BANG || b === QUESTION) return null; // a comment, CDATA or instruction could hide tags
      i += 2;
      continue;
    }
    const start = p;
    let number = 0;
    let c = src[p];
    while (c !== undefined && c >= DIGIT_0 && c <= DIGIT_9) {
      number = number * 10 + c - DIGIT_0;
      c = src[++p];
    }
    if (p === start || c !== QUOTE) return null;
    if (b === LOWER_C) {
      if (number !== rowNumber) return null; // a cell naming another row than its own
    } else {
      if (number <= shift) return null;
      rowNumber = number;
      numbers[row] = number;
    }
    if (text) {
      let moved = rowNumber - shift;
      for (let k = p - 1; k >= start; k--) {
        text[k] = DIGIT_0 + (moved % 10);
        moved = Math.floor(moved / 10);
      }
      // Digits left over, or a leading zero written: the new number is wider or narrower.
      if (moved !== 0 || text[start] === DIGIT_0) return WIDTH_CHANGED;
      i = p + 1;
      continue;
    }
    starts[count] = start;
    ends[count] = p;
    owners[count] = row;
    count++;
    i = p + 1;
  }
  return row === rows - 1 ? { count, starts, ends, owners, numbers } : null;
}
