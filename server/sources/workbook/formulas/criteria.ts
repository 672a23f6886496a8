/**
 * A criterion of COUNTIF, SUMIF, AVERAGEIF and their *IFS forms, read and matched as Excel does. Both libraries
 * had their own reading and neither was Excel's: text compared with regard to case, a wildcard matched anywhere
 * in a cell (`"a*"` counted "banana") or not at all (COUNTIFS), a blank cell counted as 0, text counted as
 * greater than any number (`">5"` counted every name), and a number typed as text in a cell never equal to the
 * number. Excel's rules, as its documentation and its results give them:
 * - a criterion is a value (`7`, `TRUE`, a cell) or text with an optional operator (`=`, `<>`, `<`, `<=`, `>`,
 *   `>=`) before its operand; an operand that reads as a number (`"5"`, `"1,000"`, `"50%"`, `"2024-03-01"`) is
 *   that number, `TRUE`/`FALSE` a logical value, `#N/A` and its kind an error, anything else text;
 * - `=` a number matches the cells holding it, and text cells that read as it; `=` text matches text without
 *   regard to case, with wildcards (wildcard.ts); `<>` matches whatever `=` does not, blank cells too;
 * - `<`, `>`, `<=`, `>=` compare numbers with numbers, text with text (without regard to case), logical values
 *   with logical values, and match nothing else;
 * - a blank cell matches only `""` (blank or empty text), `"="` (blank), and `<>` anything; an empty criterion
 *   cell is 0.
 * Dates in an operand are read in the 1900 date system, as DATE() and DATEVALUE() give them here.
 */
import { numberFromText } from './number-text.ts';
import { type FormulaErrorValue, formulaLibrary } from './parser.ts';
import { hasWildcard, textMatcher, withoutEscapes } from './wildcard.ts';

export interface Criterion {
  /** Whether a cell's value (null: blank) meets it. */
  test(cell: unknown): boolean;
  /**
   * For an equality an index of the range can answer (by `equalityKey` of each cell): the key of the cells it
   * matches. Undefined for any other criterion.
   */
  readonly key?: number | string | boolean;
}

/** Excel refuses a criterion text longer than this (#VALUE!), which also bounds a wildcard match's cost. */
export const MAX_CRITERION_LENGTH = 255;

type Operator = '=' | '<>' | '<' | '<=' | '>' | '>=';
const OPERATOR = /^(?:<=|>=|<>|<|>|=)/;
const ERROR_LITERAL = /^#(?:DIV\/0!|N\/A|NAME\?|NULL!|NUM!|REF!|VALUE!)$/i;

/** The criterion `raw` is (the first value of an array), or #VALUE! for a text Excel would refuse. */
export function readCriterion(raw: unknown): Criterion | FormulaErrorValue {
  let value = Array.isArray(raw) ? (raw.flat(2)[0] ?? null) : raw;
  if (value === null || value === undefined) value = 0;
  if (typeof value !== 'string') return equalTo(value);
  if (value.length > MAX_CRITERION_LENGTH) return formulaLibrary().FormulaError.VALUE;
  const operator = (OPERATOR.exec(value)?.[0] ?? '') as Operator | '';
  const operand = value.slice(operator.length);
  if (operand === '') return emptyOperand(operator);
  const read = operandValue(operand);
  const equal = equalTo(read, operand);
  if (operator === '' || operator === '=') return equal;
  if (operator === '<>') return { test: (cell) => !equal.test(cell) };
  return ordered(operator, read);
}

/** `""` (blank or empty text), `"="` (blank), `"<>"` (not blank); `"<"` and its kind compare with empty text. */
function emptyOperand(operator: Operator | ''): Criterion {
  if (operator === '') return { test: (cell) => cell === null || cell === undefined || cell === '' };
  if (operator === '=') return { test: (cell) => cell === null || cell === undefined };
  if (operator === '<>') return { test: (cell) => cell !== null && cell !== undefined };
  return ordered(operator, '');
}

/** What an operand reads as: a number, a logical value, an error, or text. */
function operandValue(operand: string): unknown {
  const n = numberFromText(operand);
  if (n !== undefined) return n;
  const upper = operand.toUpperCase();
  if (upper === 'TRUE' || upper === 'FALSE') return upper === 'TRUE';
  if (ERROR_LITERAL.test(operand)) return new (formulaLibrary().FormulaError)(upper);
  return operand;
}

function equalTo(value: unknown, asTyped?: string): Criterion {
  const { FormulaError } = formulaLibrary();
  if (typeof value === 'number') return { test: (cell) => numberOf(cell) === value, key: value };
  if (typeof value === 'boolean') return { test: (cell) => cell === value, key: value };
  if (value instanceof FormulaError) {
    const error = (value as FormulaErrorValue).error;
    return { test: (cell) => cell instanceof FormulaError && (cell as FormulaErrorValue).error === error };
  }
  const text = String(asTyped ?? value);
  const test = textMatcher(text);
  return hasWildcard(text) ? { test } : { test, key: withoutEscapes(text).toLowerCase() };
}

function ordered(operator: Operator, value: unknown): Criterion {
  const compare = (a: number | string | boolean, b: number | string | boolean): boolean => {
    if (operator === '<') return a < b;
    if (operator === '<=') return a <= b;
    if (operator === '>') return a > b;
    return a >= b;
  };
  if (typeof value === 'number') return { test: (cell) => typeof cell === 'number' && compare(cell, value) };
  if (typeof value === 'boolean')
    return { test: (cell) => typeof cell === 'boolean' && compare(cell, value) };
  if (typeof value !== 'string') return { test: () => false }; // an error is neither less nor greater
  const lower = value.toLowerCase();
  return { test: (cell) => typeof cell === 'string' && compare(cell.toLowerCase(), lower) };
}

/** A cell as a number for `=`: a number, or text that reads as one. */
function numberOf(cell: unknown): number | undefined {
  if (typeof cell === 'number') return cell;
  return typeof cell === 'string' ? numberFromText(cell) : undefined;
}

/**
 * The key an equality criterion finds a cell by (see `Criterion.key`): its number (text that reads as one
 * included), its text without regard to case, its logical value; undefined for a blank, empty text or an error.
 */
export function equalityKey(cell: unknown): number | string | boolean | undefined {
  if (typeof cell === 'number' || typeof cell === 'boolean') return cell;
  if (typeof cell !== 'string' || cell === '') return undefined;
  return numberFromText(cell) ?? cell.toLowerCase();
}
