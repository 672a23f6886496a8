/**
 * fast-formula-parser (MIT), typed: the package ships no type declarations, so the little of it we use is
 * declared here once. `new FormulaError('#DIV/0!')` answers the one shared instance of that error. Loaded on
 * first use: a service whose workbooks need no formula computed never pays for the parser.
 */
import { createRequire } from 'node:module';
import { generalNumber, installExcelOperators, type LibraryOperators } from './operators.ts';
import { regExpLike } from './wildcard.ts';

export interface Point {
  row: number;
  col: number;
}
export interface CellPosition extends Point {
  sheet: string;
}
export interface RangeRef {
  sheet: string;
  from: Point;
  to: Point;
}

export interface FormulaErrorValue extends Error {
  readonly error: string;
}

/** A value as a formula sees it: a date is its serial number, an error is the parser's error value. */
export type FormulaInput = number | string | boolean | null | FormulaErrorValue;

export interface ParserOptions {
  functions?: Record<string, (...params: never[]) => unknown>;
  onCell: (ref: CellPosition) => unknown;
  onRange: (ref: RangeRef) => unknown[][];
  onVariable?: (name: string, sheet: string) => CellPosition | RangeRef | undefined;
}

export interface Parser {
  parse(text: string, position: CellPosition, allowReturnArray?: boolean): unknown;
}

interface FormulaErrorClass {
  new (error: string): FormulaErrorValue;
  readonly VALUE: FormulaErrorValue;
  readonly REF: FormulaErrorValue;
  readonly NA: FormulaErrorValue;
  readonly NUM: FormulaErrorValue;
  readonly DIV0: FormulaErrorValue;
}

interface FormulaLibrary {
  FormulaParser: new (options: ParserOptions) => Parser;
  FormulaError: FormulaErrorClass;
  /**
   * For a function the parser calls with its context and unread references (SUMIF, AVERAGEIF): the values of
   * `range` and of `sized` taken as large as `range` from its top left cell (`range`'s own when null).
   */
  sizedRanges(context: unknown, range: unknown, sized: unknown): [unknown, unknown];
  /** Such a function's unread argument's value. */
  argumentValue(context: unknown, argument: unknown): unknown;
  /** What the library makes of a function's return value (null: #NULL!, NaN: #VALUE!, infinite: #NUM!). */
  checkFunctionResult(value: unknown): unknown;
}

const require = createRequire(import.meta.url);
let loaded: FormulaLibrary | undefined;

export function formulaLibrary(): FormulaLibrary {
  if (!loaded) {
    const parser = require('fast-formula-parser') as FormulaLibrary['FormulaParser'] & {
      FormulaError: FormulaErrorClass;
      FormulaHelpers: AcceptHelper & {
        flattenDeep: (values: unknown[]) => unknown[];
        checkFunctionResult: (value: unknown) => unknown;
        retrieveArg: (context: unknown, arg: unknown) => { value: unknown };
      };
      WildCard: { toRegex: unknown };
      prototype: ResultCheck;
    };
    const helpers = parser.FormulaHelpers;
    helpers.flattenDeep = linearFlatten;
    // Its wildcards became a backtracking RegExp matched anywhere in a cell (wildcard.ts says why not).
    parser.WildCard.toRegex = regExpLike;
    errorsThroughReferences(parser.prototype, parser.FormulaError);
    blanksAsNothing(helpers);
    missingArgumentsAtOnce(parser.FormulaError);
    installExcelOperators(
      require('fast-formula-parser/formulas/operators') as LibraryOperators,
      parser.FormulaError,
    );
    loaded = {
      FormulaParser: parser,
      FormulaError: parser.FormulaError,
      sizedRanges: (context, range, sized) => [
        helpers.retrieveArg(context, range).value,
        helpers.retrieveArg(context, sizedLike(range, sized, parser.FormulaError)).value,
      ],
      argumentValue: (context, argument) => helpers.retrieveArg(context, argument).value,
      checkFunctionResult: (value) => helpers.checkFunctionResult(value),
    };
  }
  return loaded;
}

interface Ref {
  ref?: { sheet?: string; row?: number; col?: number; from?: Point; to?: Point };
}

/**
 * `sized` (a cell or a range; `range` itself when null) as a reference as large as `range` from its top left
 * cell. The library's own (`Address.extend`) dropped a cell's tab, so `SUMIF(Data!A:A,"x",Data!B1)` added the
 * formula's own tab's column instead, and edited the parsed reference in place.
 */
export function sizedLike(
  range: unknown,
  sized: unknown,
  errors: FormulaErrorClass = formulaLibrary().FormulaError,
): unknown {
  const r = (range as Ref | null)?.ref;
  if (!r) throw errors.VALUE;
  if (sized === null || sized === undefined) return range;
  const s = (sized as Ref).ref;
  const top =
    s?.from ?? (typeof s?.row === 'number' && typeof s.col === 'number' ? { row: s.row, col: s.col } : null);
  if (!top) throw errors.VALUE;
  const rows = r.from && r.to ? r.to.row - r.from.row : 0;
  const columns = r.from && r.to ? r.to.col - r.from.col : 0;
  return { ref: { sheet: s!.sheet, from: top, to: { row: top.row + rows, col: top.col + columns } } };
}

/** The library's reading of one argument as the type a function wants (its `Types`: 0 number, 3 text...). */
interface AcceptHelper {
  accept(param: unknown, type?: number | null, ...rest: unknown[]): unknown;
}

/** The `Types` a blank cell reads as nothing in: a number (0), a logical value (FALSE), text (""). */
const BLANK_AS: Record<number, unknown> = { 0: 0, 2: false, 3: '', 10: 0 };

/**
 * A blank cell (or an omitted argument) given where a function wants one number, logical value or text reads as
 * 0, FALSE or "", as in Excel. The library kept the argument's wrapper when its value was blank and read that:
 * `LEN(A2)` of a blank cell was 15 (the length of "[object Object]"), `UPPER(A2)` that text in capitals.
 */
function blanksAsNothing(helpers: AcceptHelper): void {
  const accept = helpers.accept.bind(helpers);
  helpers.accept = (param, type = null, ...rest) => {
    if (type !== null && type in BLANK_AS && isBlankArgument(param)) return BLANK_AS[type];
    // A number where text is wanted is written as Excel's General format writes it (15 significant digits):
    // `LEN(1/3)` is 17 there, not the 18 of JavaScript's 0.3333333333333333.
    if (type === TEXT) {
      const n = singleValue(param);
      if (typeof n === 'number') return generalNumber(n);
    }
    return accept(param, type, ...rest);
  };
}

/** The library's `Types.STRING`. */
const TEXT = 3;

/** Not an argument as the library wraps one (`{ value, isArray }`), nor a plain number. */
const NOT_ONE = Symbol('not an argument');

/** The one value an argument holds where one is wanted (an array's first cell), a blank as null. */
function singleValue(param: unknown): unknown {
  if (typeof param === 'number') return param;
  if (param === null || typeof param !== 'object' || Array.isArray(param) || !('value' in param))
    return NOT_ONE;
  const { value, isArray } = param as { value: unknown; isArray?: boolean };
  if (value === null || value === undefined) return null;
  return isArray === true && Array.isArray(value) ? (value[0]?.[0] ?? null) : value;
}

const isBlankArgument = (param: unknown): boolean => singleValue(param) === null;

/**
 * The error of a call missing an argument, the one shared #N/A: the library made a new error at every call and
 * `require`d its helpers for the message, so a function of one value called per cell of a range with an argument
 * too few (`DATE(A:A,B:B)`) spent about 25 µs a cell on it, most of a 1M-row formula's time.
 */
function missingArgumentsAtOnce(FormulaError: FormulaErrorClass): void {
  (FormulaError as unknown as { ARG_MISSING: () => FormulaErrorValue }).ARG_MISSING = () => FormulaError.NA;
}

interface ResultCheck {
  checkFormulaResult(result: unknown, allowReturnArray?: boolean): unknown;
  retrieveRef(result: unknown): unknown;
}

/**
 * A formula that is only a reference (`=Ledger!B40`, `=A2`, `=INDEX(B:B,9)`) to a cell holding an error gives that
 * error, as in Excel: the library, asked for arrays as we ask it, took the error it read for "an object" and
 * answered #VALUE!. One to a blank cell is 0: the library failed on it, and the cell read as not computed.
 */
function errorsThroughReferences(proto: ResultCheck, FormulaError: FormulaErrorClass): void {
  const check = proto.checkFormulaResult;
  proto.checkFormulaResult = function (this: ResultCheck, result, allowReturnArray) {
    if (allowReturnArray && typeof result === 'object' && result !== null && 'ref' in result) {
      const value = this.retrieveRef(result);
      // A blank cell is 0 to the cell showing it; the library's check read the blank's null as an object.
      if (value === null || value === undefined) return null;
      return value instanceof FormulaError ? value : check.call(this, value, allowReturnArray);
    }
    return check.call(this, result, allowReturnArray);
  };
}

/**
 * The values of nested arrays in order, as the library's `flattenDeep` gives them (holes skipped), in one pass.
 * Its own (which every SUM, AVERAGE, COUNT... over a range goes through) concatenates one value at a time onto a
 * copy of all before it: quadratic, 11 s for a range of 30,000 cells and minutes for a column of 100,000 rows,
 * on the service's thread when a write computes a formula again. 1.0.19 is the library's latest release.
 */
export function linearFlatten(values: unknown[]): unknown[] {
  return values.flat(Number.POSITIVE_INFINITY);
}

/** Every value of a function's arguments, ranges and arrays cell by cell, omitted ones left out. */
export const valuesOf = (params: readonly { value: unknown; omitted?: boolean }[]): unknown[] =>
  params.flatMap((p) => (p.omitted ? [] : Array.isArray(p.value) ? linearFlatten(p.value) : [p.value]));
