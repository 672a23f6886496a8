/**
 * Worksheet functions fast-formula-parser does not implement (it has 280, but not MAX, MIN, COUNTA, SUMIFS,
 * MATCH, XLOOKUP and other everyday ones), taken from Formula.js, a library of Excel's functions. The parser
 * hands a function its arguments as `{ value, isArray }` (a range's value is a 2-D array); Formula.js takes
 * plain values and answers its own error objects, which become the parser's errors here.
 */
import { createRequire } from 'node:module';
import { spendCells } from './cell-budget.ts';
import { CRITERIA_FUNCTIONS, SIZED_CRITERIA_FUNCTIONS } from './criteria-functions.ts';
import { frequency } from './frequency.ts';
import { offset } from './offset.ts';
import { formulaLibrary, linearFlatten, valuesOf } from './parser.ts';
import { extentOf, fillOf, sameExtent } from './range-extent.ts';
import { NUMBER_PAIRS, NUMBERS_ONLY, rangeNumbers } from './range-numbers.ts';
import { refFromText } from './reference-text.ts';
import { ROUNDING_FUNCTIONS } from './rounding-functions.ts';
import { tableLookup, xlookup } from './table-lookups.ts';
import { TEXT_FUNCTIONS } from './text-functions.ts';
import { TIME_FUNCTIONS } from './time-functions.ts';
import { textMatcher } from './wildcard.ts';
import { WORKDAY_FUNCTIONS } from './workday-functions.ts';

const require = createRequire(import.meta.url);

interface Param {
  value: unknown;
  isArray?: boolean;
  omitted?: boolean;
}

/**
 * The names the parser lacks, each served by Formula.js's function of the same name. Those of `OVER_RANGES`
 * flatten every range they are given into one list of values, and are given it flat already (`wrap`): MAXA, MINA,
 * LOOKUP, and the statistical functions range-numbers.ts holds to a range's numbers.
 */
export const OVER_RANGES = ['MAXA', 'MINA', 'LOOKUP', ...NUMBERS_ONLY, ...NUMBER_PAIRS] as const;
/** The payment and depreciation functions, of single values. */
const ON_VALUES = [
  'SWITCH',
  'UPPER',
  'PMT',
  'FV',
  'PV',
  'RATE',
  'NPER',
  'IPMT',
  'PPMT',
  'SLN',
  'DB',
  'DDB',
  'EFFECT',
  'NOMINAL',
  'PERMUT',
  'PERMUTATIONA',
] as const;

type Fn = (...args: unknown[]) => unknown;

export function formulajsFunction(formulajs: unknown, name: string): Fn | undefined {
  let at: unknown = formulajs;
  for (const part of name.split('.')) at = (at as Record<string, unknown> | undefined)?.[part];
  return typeof at === 'function' ? (at as Fn) : undefined;
}

/** A Formula.js error (an Error whose message is `#VALUE!` and the like) as the parser's error value. */
function toParserValue(result: unknown): unknown {
  const { FormulaError } = formulaLibrary();
  if (result instanceof Error) {
    return /^#[A-Z0-9/]+[!?]?$/.test(result.message) ? new FormulaError(result.message) : FormulaError.VALUE;
  }
  return result;
}

/**
 * A Formula.js function as the parser calls it. `flatRanges`: each range (a 2-D array) goes in as the one list
 * of its values, row by row, which is what the function makes of it itself, but Formula.js's own flattening
 * concatenates row onto row, a copy of all before each: 9 s for MAX over 30,000 rows, minutes over 100,000.
 */
function wrap(name: string, fn: Fn, flatRanges: boolean) {
  return (...params: Param[]) => {
    const flat = params.map((p) => !p.omitted && flatRanges && Array.isArray(p.value));
    const given = params.map((p, i) =>
      p.omitted ? undefined : flat[i] ? linearFlatten(p.value as unknown[]) : p.value,
    );
    for (const arg of given) if (arg instanceof formulaLibrary().FormulaError) return arg;
    const args = rangeNumbers(name, given, flat);
    return Array.isArray(args) ? toParserValue(fn(...args)) : args;
  };
}

const flat = (value: unknown): unknown[] => (Array.isArray(value) ? value.flat(2) : [value]);

/**
 * RANK.EQ(number, ref, [order]) as Excel ranks: among the numbers of `ref` (text, booleans and blanks ignored,
 * an error given back), 1 + how many are greater (smaller with an order other than 0), #N/A when the number is
 * not among them. Formula.js's refused any ref with text in it (`RANK(B2,B:B)` over a column with its header
 * read #VALUE!), counted blanks as 0, answered 0 for a number not found, and sorted the ref at every call.
 * RANK.AVG (`average`) gives numbers that tie the mean of the ranks they share.
 */
export function rankEq(number: unknown, ref: unknown, order: unknown, average = false): unknown {
  const { FormulaError } = formulaLibrary();
  const n = number ?? 0;
  if (n instanceof FormulaError) return n;
  if (typeof n !== 'number') return FormulaError.VALUE;
  const ascending = Boolean(order);
  let ties = 0;
  let before = 0;
  for (const v of flat(ref)) {
    if (v instanceof FormulaError) return v;
    if (typeof v !== 'number') continue;
    if (v === n) ties++;
    else if (ascending ? v < n : v > n) before++;
  }
  if (ties === 0) return FormulaError.NA;
  return average ? before + (ties + 1) / 2 : before + 1;
}

/** COUNTA as Excel counts: every value that is not blank, errors and empty text ("") included. */
function countA(...params: Param[]): number {
  return valuesOf(params).filter((v) => v !== null && v !== undefined).length;
}

/**
 * MATCH(text, range, 0) as Excel matches: without regard to case, with wildcards (wildcard.ts). Formula.js made
 * the text into a RegExp as it was (`.`, `^`, `{` its own signs, `*` a backtracking `.*`). Any other MATCH is
 * Formula.js's own.
 */
function excelMatch(formulajs: Fn) {
  return (given: Param, range: Param, type?: Param): unknown => {
    // A range or an array to look up is read by its first cell, as other functions of one value read it. Formula.js
    // compared each cell with the whole array made text: 26 s for ranges of 20,000.
    const lookup = Array.isArray(given.value) ? { value: linearFlatten(given.value)[0] ?? null } : given;
    const text = lookup.value;
    if (type?.value !== 0 || type.omitted || typeof text !== 'string' || text === '')
      return wrap(
        'MATCH',
        formulajs,
        true,
      )(...[lookup, range, type].filter((p): p is Param => p !== undefined));
    const at = flat(range.value).findIndex(textMatcher(text));
    return at < 0 ? formulaLibrary().FormulaError.NA : at + 1;
  };
}

/**
 * SUMPRODUCT(array1, [array2], ...) as Excel computes it: arrays of one shape (#VALUE! otherwise), the first
 * error in them given back, anything but a number counted as 0. The library's added text to its sum as text
 * (`SUMPRODUCT(1/{1,0,2})` was "1#DIV/0!0.5") and wrote into its arguments.
 */
export function sumProduct(...params: Param[]): unknown {
  const { FormulaError } = formulaLibrary();
  const grids = params.map((p) => (Array.isArray(p.value) ? (p.value as unknown[][]) : [[p.value]]));
  const first = grids[0];
  if (!first || !grids.every((g) => sameExtent(g, first))) return FormulaError.VALUE;
  // Past a grid's cells, within the ranges' extent, each cell is the grid's fill (range-extent.ts): blank for a
  // range, so 0, but `A:A=""` is TRUE there.
  const fills = grids.map(fillOf);
  const rows = Math.max(...grids.map((g) => g.length));
  const columns = Math.max(...grids.map((g) => g[0]?.length ?? 0));
  let sum = 0;
  let error: unknown;
  const times = (v: unknown, product: number): number => {
    if (typeof v === 'number') return product * v;
    if (v instanceof FormulaError) error ??= v;
    return 0;
  };
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < columns; c++) {
      let product = 1;
      for (let i = 0; i < grids.length; i++) {
        const line = grids[i]![r];
        product = times(line !== undefined && c < line.length ? line[c] : fills[i], product);
      }
      sum += product;
    }
  const { rows: allRows, columns: allColumns } = extentOf(first);
  const past = allRows * allColumns - rows * columns;
  if (past > 0) sum += fills.reduce((product: number, v) => times(v, product), 1) * past;
  return error ?? sum;
}

/**
 * INDEX over a range of another tab answers that tab's cell. The library's answered a reference without its tab,
 * which then read the formula's own tab: `INDEX(Data!B:B,MATCH(...))` gave the cell of the formula's tab.
 */
function indexOnItsTab(library: (...params: never[]) => unknown) {
  return (context: unknown, ranges: unknown, ...rest: unknown[]): unknown => {
    const answer = (library as (...params: unknown[]) => unknown)(context, ranges, ...rest) as
      | { ref?: { sheet?: string } }
      | undefined;
    const sheet = (ranges as { ref?: { sheet?: string } } | null)?.ref?.sheet;
    if (!answer?.ref || answer.ref.sheet || !sheet) return answer;
    return { ...answer, ref: { ...answer.ref, sheet } };
  };
}

/** The largest identity matrix MUNIT makes. */
export const MAX_UNIT_MATRIX = 1_024;

/** The base conversions that take `places` (`DEC2BIN(5,8)`). */
const WITH_PLACES = [
  'BIN2HEX',
  'BIN2OCT',
  'DEC2BIN',
  'DEC2HEX',
  'DEC2OCT',
  'HEX2BIN',
  'HEX2OCT',
  'OCT2BIN',
  'OCT2HEX',
];

/**
 * A base conversion with more than 10 places is #NUM!, as in Excel: the library padded one "0" at a time up to
 * any count, so `DEC2BIN(1,A1)` with A1 written as 10^12 held the thread without end.
 */
function placesAtMostTen(library: (...params: (Param | undefined)[]) => unknown) {
  return (number: Param, places?: Param): unknown =>
    places && !places.omitted && Number(places.value) > 10
      ? formulaLibrary().FormulaError.NUM
      : library(number, places);
}

/** Functions neither library has, in their common form. */
const OWN: Record<string, (...params: Param[]) => unknown> = {
  'RANK.EQ': (number, ref, order) => rankEq(number.value, ref.value, order?.omitted ? 0 : order?.value),
  'RANK.AVG': (number, ref, order) =>
    rankEq(number.value, ref.value, order?.omitted ? 0 : order?.value, true),
  COUNTA: countA,
  /** CHOOSE(index, value1, value2, ...); the parser hands it its context first, as to INDEX. */
  CHOOSE: (_context, index, ...choices) => {
    const n = Math.trunc(Number(index.value));
    const choice = choices[n - 1];
    if (!choice || !Number.isFinite(n)) return formulaLibrary().FormulaError.VALUE;
    return choice.value;
  },
  XLOOKUP: xlookup,
  OFFSET: offset as never,
  /**
   * INDIRECT(text, [a1]): the reference the text names (`INDIRECT("Data!C"&3)`), `#REF!` for text that names
   * none; R1C1 text (a1 FALSE) is not read. The parser hands it its context first.
   */
  INDIRECT: (_context, text, a1) => {
    const ref =
      typeof text?.value === 'string' && a1?.value !== false ? refFromText(text.value, '') : undefined;
    if (!ref) return formulaLibrary().FormulaError.REF;
    return { ref: { ...ref, sheet: ref.sheet || undefined } };
  },
  SUMPRODUCT: sumProduct,
  FREQUENCY: frequency as never,
};

/** The function table to hand to `new FormulaParser({ functions })`. */
export function extraFunctions(): Record<string, (...params: Param[]) => unknown> {
  const table: Record<string, (...params: Param[]) => unknown> = {};
  const formulajs: unknown = require('@formulajs/formulajs');
  for (const [names, flatRanges] of [
    [OVER_RANGES, true],
    [ON_VALUES, false],
  ] as const) {
    for (const name of names) {
      const fn = formulajsFunction(formulajs, name);
      if (fn) table[name] = wrap(name, fn, flatRanges);
    }
  }
  Object.assign(
    table,
    OWN,
    CRITERIA_FUNCTIONS,
    SIZED_CRITERIA_FUNCTIONS,
    TEXT_FUNCTIONS,
    WORKDAY_FUNCTIONS,
    ROUNDING_FUNCTIONS,
    TIME_FUNCTIONS,
  );
  table.MATCH = excelMatch(formulajsFunction(formulajs, 'MATCH')!);
  const reference = require('fast-formula-parser/formulas/functions/reference.js') as Record<
    string,
    (...params: (Param | undefined)[]) => unknown
  >;
  const engineering = require('fast-formula-parser/formulas/functions/engineering.js') as Record<
    string,
    (...params: (Param | undefined)[]) => unknown
  >;
  for (const name of WITH_PLACES) table[name] = placesAtMostTen(engineering[name]!);
  const math = require('fast-formula-parser/formulas/functions/math.js') as Record<
    string,
    (p: Param) => unknown
  >;
  // MUNIT(n) makes all n² cells of its matrix: past 1,024 (a million cells), #NUM!, never a matrix of a count a
  // cell was written with (10^5 would be 10^10 cells, more memory than the service has).
  table.MUNIT = (n: Param) =>
    Number(n.value) > MAX_UNIT_MATRIX ? formulaLibrary().FormulaError.NUM : math.MUNIT!(n);
  // MMULT makes a cell for each row of its first array by each column of its second (a column by a row is every
  // cell of both): counted against the formula's budget before it is made (cell-budget.ts).
  const mmult = math.MMULT as unknown as (a: Param, b: Param) => unknown;
  table.MMULT = (a: Param, b: Param) => {
    spendCells(
      Array.isArray(a.value) ? a.value.length : 1,
      Array.isArray(b.value) ? (b.value[0]?.length ?? 1) : 1,
    );
    return mmult(a, b);
  };
  const information = require('fast-formula-parser/formulas/functions/information.js') as Record<
    string,
    (p: Param) => unknown
  >;
  // ISODD, which the parser lacks, as its ISEVEN's opposite (#VALUE! for text, as Excel; Formula.js said FALSE).
  table.ISODD = (n: Param) => {
    const even = information.ISEVEN!(n);
    return typeof even === 'boolean' ? !even : even;
  };
  const statistical = require('fast-formula-parser/formulas/functions/statistical.js') as Record<
    string,
    (...params: Param[]) => unknown
  >;
  // The mean of no numbers is #DIV/0!, as in Excel: the library's 0/0 read as #VALUE!.
  for (const name of ['AVERAGE', 'AVERAGEA']) {
    const mean = statistical[name]!;
    table[name] = (...params: Param[]) => {
      const result = mean(...params);
      return Number.isNaN(result) ? formulaLibrary().FormulaError.DIV0 : result;
    };
  }
  table.INDEX = indexOnItsTab(reference.INDEX!);
  table.VLOOKUP = tableLookup(true, reference.VLOOKUP!);
  table.HLOOKUP = tableLookup(false, reference.HLOOKUP!);
  return table;
}
