/**
 * What a run of rows' XML says of its formulas without taking it apart: whether it may hold one, and how far
 * down they may read.
 *
 * The reach is the largest number written in any `<f>` the largest number written in any `<f>`
 * element (its text and its attributes). A delete of rows at or below that leaves every one of them as it is
 * (shiftFormula changes only references to rows at or below the first deleted row), so a piece of rows above the
 * delete whose reach is smaller is left closed and untouched, where it would otherwise be opened, every formula
 * shifted to the same text, and compressed again.
 *
 * An upper bound, never less than the truth: a number that is no row (a constant, LOG10, an entity's code)
 * only raises it. Text it cannot bound answers Infinity: a shared formula's follower (its text is another
 * cell's, moved), a prefixed `<x:f>`, an element it cannot find the end of.
 */

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const LOWER_F = 0x66;
const COLON = 0x3a;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * Whether some cell of the text may hold a formula (`<f>`, any prefix; a false yes costs a rewrite, never a
 * wrong file). A plain search first: the pattern alone, run over every piece of a large sheet, cost seconds.
 */
export function mayHoldFormula(text: string): boolean {
  return text.includes('<f') || (text.includes(':f') && PREFIXED_FORMULA.test(text));
}

const PREFIXED_FORMULA = /<[\w.-]+:f[\s>/]/;

/**
 * `mayHoldFormula` of UTF-8 bytes, the same answer (the searched characters are ASCII). Found from the `f`s,
 * which a sheet of values has few of, where a search for `<f` would stop at every tag.
 */
export function mayHoldFormulaBytes(bytes: Buffer): boolean {
  let prefixed = false;
  for (let at = bytes.indexOf(LOWER_F); at >= 0; at = bytes.indexOf(LOWER_F, at + 1)) {
    const before = bytes[at - 1];
    if (before === LT) return true;
    if (before === COLON) prefixed = true;
  }
  return prefixed && PREFIXED_FORMULA.test(bytes.toString('latin1'));
}

/** A reach no formula of a sheet can exceed in fact: the text could not be bounded. */
export const UNBOUNDED = Number.POSITIVE_INFINITY;

/** Reads code units of a text or bytes of its UTF-8: the characters looked at are ASCII either way. */
interface Units {
  length: number;
  at(index: number): number;
  indexOf(unit: number, from: number): number;
}

const textUnits = (text: string): Units => ({
  length: text.length,
  at: (i) => text.charCodeAt(i),
  indexOf: (unit, from) => text.indexOf(String.fromCharCode(unit), from),
});

const byteUnits = (bytes: Uint8Array): Units => {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return {
    length: buffer.length,
    at: (i) => buffer[i] as number,
    indexOf: (unit, from) => buffer.indexOf(unit, from),
  };
};

/** The reach of rows' XML text (0 when it holds no formula). */
export function formulaReach(text: string): number {
  return reachOf(textUnits(text));
}

/** `formulaReach` of the text's UTF-8 bytes: the same answer. */
export function formulaReachBytes(bytes: Uint8Array): number {
  return reachOf(byteUnits(bytes));
}

function reachOf(units: Units): number {
  let reach = 0;
  // Each `f` is looked at: a sheet of values holds few, and each `<f` and `:f` (a prefixed name) is one.
  for (let at = units.indexOf(LOWER_F, 0); at >= 0; at = units.indexOf(LOWER_F, at + 1)) {
    const before = units.at(at - 1);
    if (before === COLON && at >= 2 && isNameEnd(units.at(at + 1))) return UNBOUNDED;
    if (before !== LT || !isNameEnd(units.at(at + 1))) continue;
    const end = elementEnd(units, at + 1);
    if (end < 0) return UNBOUNDED;
    const largest = largestNumber(units, at + 1, end);
    if (largest > reach) reach = largest;
    at = end;
  }
  return reach;
}

/** What may follow an element's name `f`: a space, `>` or `/` (any other letter makes another name). */
const isNameEnd = (unit: number): boolean =>
  unit === GT || unit === SLASH || unit === 0x20 || unit === 0x09 || unit === 0x0a || unit === 0x0d;

/**
 * Where the `<f` element whose name ends before `from` ends: after its `</f>`; -1 when it does not end, or is
 * empty (`<f t="shared" si="0"/>`: a shared formula's follower, whose references are its master's, moved).
 * Attribute values hold no `>` in XML a spreadsheet writer makes (it is escaped there too).
 */
function elementEnd(units: Units, from: number): number {
  const startEnd = units.indexOf(GT, from);
  if (startEnd < 0 || units.at(startEnd - 1) === SLASH) return -1;
  for (let at = units.indexOf(LT, startEnd); at >= 0; at = units.indexOf(LT, at + 1)) {
    if (units.at(at + 1) === SLASH && units.at(at + 2) === LOWER_F && units.at(at + 3) === GT) return at + 4;
  }
  return -1;
}

/** The largest run of digits in [from, to), as a number (0 when none). */
function largestNumber(units: Units, from: number, to: number): number {
  let largest = 0;
  let current = -1;
  for (let i = from; i < to; i++) {
    const unit = units.at(i);
    if (unit >= DIGIT_0 && unit <= DIGIT_9) current = (current < 0 ? 0 : current * 10) + (unit - DIGIT_0);
    else if (current >= 0) {
      if (current > largest) largest = current;
      current = -1;
    }
  }
  return current > largest ? current : largest;
}

/** What the move of a closed piece of rows needs to know of its formulas (row-piece.ts). */
export interface FormulaFacts {
  /** It may hold a formula (mayHoldFormula). */
  formulas: boolean;
  /** How far down they may read (formulaReach; 0 without formulas). */
  reach: number;
  /** It may hold a shared formula, which a delete first gives each cell its own text of. */
  shared: boolean;
}

export const NO_FORMULAS: FormulaFacts = { formulas: false, reach: 0, shared: false };

export function formulaFacts(text: string): FormulaFacts {
  if (!mayHoldFormula(text)) return NO_FORMULAS;
  return { formulas: true, reach: formulaReach(text), shared: text.includes('shared') };
}

/** `formulaFacts` of the text's UTF-8 bytes. */
export function formulaFactsOfBytes(bytes: Buffer): FormulaFacts {
  if (!mayHoldFormulaBytes(bytes)) return NO_FORMULAS;
  return { formulas: true, reach: formulaReachBytes(bytes), shared: bytes.includes('shared') };
}
