/**
 * The formula operators (`=` `<>` `<` `<=` `>` `>=`, `&`, `+` `-` `*` `/` `^`, a leading `-` or `+`, a trailing
 * `%`) as Excel computes them, over single values and, cell by cell, over ranges and arrays. The library's took
 * the first cell of a range in every operator, so `SUMPRODUCT((A2:A9>5)*B2:B9)`, the conditional sum
 * spreadsheets are full of, added one cell or none; it compared text with regard to case, a blank cell with ""
 * as unequal (`IF(A2="",...)` took the wrong branch) and `0.1+0.2=0.3` as false. Excel's rules:
 * - an error operand gives its error (the left one first), cell by cell in an array;
 * - over arrays the operator applies to each pair of cells; an array of one row (or column) is repeated down (or
 *   across) the other, and a cell beyond the end of a larger one is #N/A; a range past the sheet's last row is
 *   paired as far as either range's cells go (range-extent.ts);
 * - a blank cell is compared as the other side's kind of nothing (0, "", FALSE), is 0 to arithmetic and "" to `&`;
 * - comparisons order numbers before text before logical values; text compares without regard to case, numbers
 *   to Excel's 15 significant digits;
 * - arithmetic reads logical values as 1 and 0 and text that reads as a number as that number
 *   (number-text.ts), other text is #VALUE!; a result no number can hold is #NUM!, a division by zero #DIV/0!;
 * - `&` writes a number as Excel's General format does (15 significant digits) and a logical value as TRUE or
 *   FALSE; a text longer than a cell may hold (32,767 characters) is #VALUE!.
 */
import { EXCEL_MAX_CELL_CHARS } from '../excel-grid.ts';
import { spendCells } from './cell-budget.ts';
import { numberFromText } from './number-text.ts';
import {
  cellOf,
  type Extent,
  extentOf,
  fillOf,
  isExtended,
  type Origin,
  originOf,
  withExtent,
  withOrigin,
} from './range-extent.ts';

/** The library's error values (parser.ts, which installs these operators, says so in full). */
type FormulaErrorValue = Error & { readonly error: string };

type ErrorClass = {
  new (error: string): FormulaErrorValue;
  readonly VALUE: FormulaErrorValue;
  readonly NA: FormulaErrorValue;
  readonly NUM: FormulaErrorValue;
  readonly DIV0: FormulaErrorValue;
};

type Grid = readonly (readonly unknown[])[];

/** The library's operator objects, whose functions its parser calls at each use (so replaced in place). */
export interface LibraryOperators {
  Infix: {
    compareOp: (a: unknown, infix: string, b: unknown) => unknown;
    concatOp: (a: unknown, infix: string, b: unknown) => unknown;
    mathOp: (a: unknown, infix: string, b: unknown) => unknown;
  };
  Prefix: { unaryOp: (prefixes: readonly string[], value: unknown) => unknown };
  Postfix: { percentOp: (value: unknown, postfix: string) => unknown };
}

/** Puts Excel's operators in place of the library's. */
export function installExcelOperators(library: LibraryOperators, errors: ErrorClass): void {
  const isError = (v: unknown): v is FormulaErrorValue => v instanceof errors;
  const binary =
    (op: (a: unknown, b: unknown, infix: string) => unknown) =>
    (a: unknown, infix: string, b: unknown): unknown =>
      pairwise(a, b, errors.NA, (x, y) => (isError(x) ? x : isError(y) ? y : op(x, y, infix)));
  const unary = (value: unknown, op: (v: unknown) => unknown): unknown =>
    eachCell(value, (v) => (isError(v) ? v : op(v)));
  const number = (v: unknown): number | FormulaErrorValue => toNumber(v) ?? errors.VALUE;

  library.Infix.compareOp = binary((a, b, infix) => {
    if (infix === '=') return equalValues(a, b);
    if (infix === '<>') return !equalValues(a, b);
    return holds(infix, compareValues(a, b));
  });
  library.Infix.concatOp = binary((a, b) => {
    const text = textOf(a) + textOf(b);
    return text.length > EXCEL_MAX_CELL_CHARS ? errors.VALUE : text; // Excel's longest text
  });
  library.Infix.mathOp = binary((a, b, infix) => {
    const x = number(a);
    const y = number(b);
    if (isError(x)) return x;
    if (isError(y)) return y;
    return arithmetic(infix, x, y, errors);
  });
  library.Prefix.unaryOp = (prefixes, value) => {
    // Each `-` makes a number (`--TRUE` is 1); `+` alone leaves the value as it is (`+"a"` is "a").
    const minuses = prefixes.filter((p) => p === '-').length;
    return unary(value, (v) => {
      if (minuses === 0) return v ?? 0;
      const n = number(v);
      return isError(n) || n === 0 ? n : minuses % 2 === 1 ? -n : n;
    });
  };
  library.Postfix.percentOp = (value) =>
    unary(value, (v) => {
      const n = number(v);
      return isError(n) ? n : n / 100;
    });
}

/**
 * `op` over two values, or over every pair of cells when either is an array (Excel's broadcasting), as far as
 * either array's cells were read: past that, within a range's extent (range-extent.ts), the cells are blank.
 */
export function pairwise(
  a: unknown,
  b: unknown,
  outside: unknown,
  op: (x: unknown, y: unknown) => unknown,
): unknown {
  if (!Array.isArray(a) && !Array.isArray(b)) return op(a, b);
  const left = gridOf(a);
  const right = gridOf(b);
  const l = extentOf(left);
  const r = extentOf(right);
  const extent = { rows: Math.max(l.rows, r.rows), columns: Math.max(l.columns, r.columns) };
  let rows = Math.min(extent.rows, Math.max(left.length, right.length));
  let columns = Math.min(extent.columns, Math.max(left[0]?.length ?? 0, right[0]?.length ?? 0));
  const past =
    rows < extent.rows || columns < extent.columns ? fillPast(left, l, right, r, extent, op) : { fill: null };
  if (!past) [rows, columns] = [extent.rows, extent.columns]; // cells past the arrays' own differ: all made
  spendCells(rows, columns); // a column paired with a row makes every cell of both (cell-budget.ts)
  const out: unknown[][] = new Array(rows);
  const fill = past?.fill ?? null;
  if (covers(l, extent) && covers(r, extent)) {
    // Neither array ends before the other (the common case: ranges of one size, or one value along a range).
    const [lr, lc, rr, rc] = [step(l.rows), step(l.columns), step(r.rows), step(r.columns)];
    const [lw, rw] = [left[0]?.length ?? 0, right[0]?.length ?? 0];
    const [lf, rf] = [fillOf(left), fillOf(right)];
    for (let i = 0; i < rows; i++) {
      const x = left[i * lr];
      const y = right[i * rr];
      const line: unknown[] = new Array(columns);
      for (let j = 0; j < columns; j++) {
        const a = x !== undefined && j * lc < lw ? (x[j * lc] ?? null) : lf;
        const b = y !== undefined && j * rc < rw ? (y[j * rc] ?? null) : rf;
        line[j] = op(a, b);
      }
      out[i] = line;
    }
    return withOrigin(withExtent(out, extent, fill), pairedOrigin(a, l, b, r));
  }
  for (let i = 0; i < rows; i++) {
    const line: unknown[] = new Array(columns);
    for (let j = 0; j < columns; j++) {
      const x = cellAt(left, l, i, j);
      const y = cellAt(right, r, i, j);
      line[j] = x === OUTSIDE || y === OUTSIDE ? outside : op(x, y);
    }
    out[i] = line;
  }
  return withOrigin(withExtent(out, extent, fill), pairedOrigin(a, l, b, r));
}

/**
 * Where a pairing's cells lie on the tab, when its ranges line up (columns on the same rows, rows on the same
 * columns, or one range beside single values): what a formula's own row reads of it (evaluator.ts, Excel's
 * implicit intersection).
 */
function pairedOrigin(a: unknown, l: Extent, b: unknown, r: Extent): Origin | undefined {
  const x = Array.isArray(a) ? originOf(a) : undefined;
  const y = Array.isArray(b) ? originOf(b) : undefined;
  if (!Array.isArray(a)) return y;
  if (!Array.isArray(b)) return x;
  if (!x || !y) return undefined;
  const rows = x.row === y.row && l.rows === r.rows;
  const columns = x.column === y.column && l.columns === r.columns;
  if (rows && (columns || (l.columns === 1 && r.columns === 1))) return x;
  if (columns && l.rows === 1 && r.rows === 1) return x;
  return undefined;
}

/**
 * What every cell of a pairing past its own cells holds, when that is one value: each side is one value, or
 * stands for the whole result with its own fill there (`A:A=""` past the column's last row). Undefined when a side
 * repeated along the other makes those cells differ (a row paired with a whole column).
 */
function fillPast(
  left: Grid,
  l: Extent,
  right: Grid,
  r: Extent,
  whole: Extent,
  op: (x: unknown, y: unknown) => unknown,
): { fill: unknown } | undefined {
  const one = (grid: Grid, e: Extent): { value: unknown } | undefined => {
    if (e.rows === 1 && e.columns === 1) return { value: cellOf(grid, 0, 0) };
    if (e.rows === whole.rows && e.columns === whole.columns) return { value: fillOf(grid) };
    return undefined;
  };
  const x = one(left, l);
  const y = one(right, r);
  return x && y ? { fill: op(x.value, y.value) } : undefined;
}

const OUTSIDE = Symbol('outside the array');

/** Whether an array of extent `e` reaches every cell of `whole`, repeated along a dimension of one. */
const covers = (e: Extent, whole: Extent): boolean =>
  (e.rows === 1 || e.rows === whole.rows) && (e.columns === 1 || e.columns === whole.columns);

/** How far along an array a step of the result moves: not at all along a dimension of one. */
const step = (size: number): number => (size === 1 ? 0 : 1);

const gridOf = (v: unknown): Grid => (Array.isArray(v) ? (v as Grid) : [[v]]);

/** The cell at (r, c) of a grid repeated along a dimension of one, or OUTSIDE past a larger one's end. */
function cellAt(grid: Grid, extent: Extent, r: number, c: number): unknown {
  const row = extent.rows === 1 ? 0 : r;
  const column = extent.columns === 1 ? 0 : c;
  if (row >= extent.rows || column >= extent.columns) return OUTSIDE;
  return cellOf(grid, row, column);
}

export function eachCell(value: unknown, op: (v: unknown) => unknown): unknown {
  if (!Array.isArray(value)) return op(value);
  const grid = value as Grid;
  spendCells(grid.length, grid[0]?.length ?? 0);
  const cells = withExtent(
    grid.map((line) => line.map((v) => op(v ?? null))),
    extentOf(grid),
    isExtended(grid) ? op(fillOf(grid)) : null,
  );
  return withOrigin(cells, originOf(grid));
}

/** Whether an ordering operator holds for `order` (`=` and `<>` are `equalValues`). */
function holds(infix: string, order: number): boolean {
  switch (infix) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    default:
      return order >= 0;
  }
}

/** Excel's kinds in comparison order: numbers, then text, then logical values. */
const KIND_ORDER: Record<string, number> = { number: 1, string: 2, boolean: 3 };

let collator: Intl.Collator | undefined;

/** -1, 0 or 1: how `a` orders against `b`, a blank taken as the other side's kind of nothing. */
export function compareValues(a: unknown, b: unknown): number {
  const x = a ?? blankLike(b);
  const y = b ?? blankLike(a);
  if (typeof x !== typeof y) return Math.sign(KIND_ORDER[typeof x]! - KIND_ORDER[typeof y]!);
  if (typeof x === 'number') return compareNumbers(x, y as number);
  if (typeof x === 'string') return compareTexts(x, y as string);
  return x === y ? 0 : x ? 1 : -1;
}

function blankLike(other: unknown): number | string | boolean {
  if (typeof other === 'string') return '';
  if (typeof other === 'boolean') return false;
  return 0;
}

function compareNumbers(x: number, y: number): number {
  if (x === y) return 0;
  // Apart by more than their 15th significant digit: no rounding can make them equal.
  if (Math.abs(x - y) > 1e-13 * Math.max(Math.abs(x), Math.abs(y))) return x < y ? -1 : 1;
  const rx = Number(x.toPrecision(15));
  const ry = Number(y.toPrecision(15));
  return rx === ry ? 0 : rx < ry ? -1 : 1;
}

/**
 * Whether `a = b`: what `compareValues` calls 0, without ordering texts (a `=` over two ranges of a thousand
 * rows each is a million of these).
 */
function equalValues(a: unknown, b: unknown): boolean {
  const x = a ?? blankLike(b);
  const y = b ?? blankLike(a);
  if (x === y) return true;
  if (typeof x === 'string' && typeof y === 'string') return sameText(x, y);
  return typeof x === 'number' && typeof y === 'number' && compareNumbers(x, y) === 0;
}

const ASCII = /^[\x00-\x7f]*$/;

/** Text equal without regard to case: ASCII letter by letter, anything else as lower case. */
function sameText(x: string, y: string): boolean {
  if (x.length !== y.length) return !(ASCII.test(x) && ASCII.test(y)) && x.toLowerCase() === y.toLowerCase();
  for (let i = 0; i < x.length; i++) {
    const a = x.charCodeAt(i);
    const b = y.charCodeAt(i);
    if (a === b) continue;
    if (a > 127 || b > 127) return x.toLowerCase() === y.toLowerCase();
    const lower = a | 32;
    if (lower !== (b | 32) || lower < 97 || lower > 122) return false;
  }
  return true;
}

function compareTexts(x: string, y: string): number {
  const lx = x.toLowerCase();
  const ly = y.toLowerCase();
  if (lx === ly) return 0;
  collator ??= new Intl.Collator('en', { sensitivity: 'accent' });
  return collator.compare(lx, ly) || (lx < ly ? -1 : 1);
}

/** A value as arithmetic reads it, or undefined for text that is no number. */
function toNumber(v: unknown): number | undefined {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return typeof v === 'string' ? numberFromText(v) : undefined;
}

function arithmetic(infix: string, x: number, y: number, errors: ErrorClass): number | FormulaErrorValue {
  let result: number;
  switch (infix) {
    case '+':
      result = x + y;
      break;
    case '-':
      result = x - y;
      break;
    case '*':
      result = x * y;
      break;
    case '/':
      if (y === 0) return errors.DIV0;
      result = x / y;
      break;
    default:
      if (x === 0 && y === 0) return errors.NUM;
      if (x === 0 && y < 0) return errors.DIV0;
      result = x ** y;
  }
  return Number.isFinite(result) ? result : errors.NUM;
}

/** A value as `&` writes it. */
export function textOf(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (typeof v === 'number') return generalNumber(v);
  return String(v);
}

/** A number as Excel's General format writes it: 15 significant digits, exponent form past them. */
export function generalNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e15) return String(n === 0 ? 0 : n);
  const rounded = Number(n.toPrecision(15));
  if (rounded === 0) return '0';
  const size = Math.abs(rounded);
  if (size < 1e15 && size >= 1e-9) {
    const plain = String(rounded);
    if (!plain.includes('e')) return plain;
  }
  const [mantissa, exponent] = rounded.toExponential().split('e') as [string, string];
  const sign = exponent.startsWith('-') ? '-' : '+';
  return `${mantissa}E${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
}
