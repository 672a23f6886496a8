/**
 * Computing formula results the file has no cached value for, across a workbook: A1 and cross-tab references,
 * ranges, defined names and (rewritten to A1 first) structured references. Parsing and the functions are
 * fast-formula-parser's (plus functions.ts); which cells to compute, where their inputs come from, and the
 * order (a cell's inputs before the cell, cycles cut) are ours.
 */

import { EXCEL_MAX_CELL_CHARS } from '../excel-grid.ts';
import { pastItsBound } from './argument-bounds.ts';
import { callKey, keepable, MAX_KEPT_CALLS } from './call-memo.ts';
import type { CallReader } from './call-reader.ts';
import { budgetSpent, DEFAULT_CELL_BUDGET, spendCells, spendOn, withCellBudget } from './cell-budget.ts';
import { type DefinedName, DefinedNames } from './defined-names.ts';
import { type FormulaResult, implicitIntersection, toResult } from './formula-result.ts';
import { withoutAbsoluteMarks, withPlainNumbers } from './formula-text.ts';
import { extraFunctions } from './functions.ts';
import { liftedCall } from './lifted-calls.ts';
import { LookupIndexes } from './lookup-index.ts';
import {
  type CellPosition,
  type FormulaErrorValue,
  type FormulaInput,
  formulaLibrary,
  type Parser,
  type RangeRef,
} from './parser.ts';
import { withExtent, withOrigin } from './range-extent.ts';
import { type Ref, refFromText } from './reference-text.ts';
import { rewrittenCall } from './renamed-calls.ts';
import { resolveStructuredRefs, type TableInfo } from './structured-refs.ts';
import { isSubtotalFormula } from './subtotal.ts';

export type { FormulaResult } from './formula-result.ts';
export type { FormulaInput } from './parser.ts';

/** One tab as the evaluator reads it. */
export interface SheetCells {
  name: string;
  /** Last row and column holding anything (ranges such as `A:A` stop there). */
  bottom: number;
  right: number;
  /** What a formula sees in a cell that is not itself waiting to be computed. */
  value(row: number, column: number): FormulaInput;
  /** The formula (no `=`) of a cell whose result is to be computed here, if it is one. */
  pending(row: number, column: number): string | undefined;
  /**
   * Whether the cell's formula is an array formula (`<f t="array">`: entered with Ctrl+Shift+Enter, or a dynamic
   * array), whose result shows its first value; any other formula reads its own row of a column it gives
   * (`toResult`). Unknown: not one.
   */
  arrayFormula?(row: number, column: number): boolean;
  /** The formula (no `=`) of any cell holding one, computed here or not (SUBTOTAL leaves out its kind). */
  formula?(row: number, column: number): string | undefined;
}

export type { DefinedName } from './defined-names.ts';

const key = (row: number, column: number) => row * 16_384 + column;

/**
 * How deep a formula reading one not computed yet computes it within itself. Deeper (a running balance computed
 * from its far end, a summary on the first tab reading the end of a long chain), the work starts over from the
 * deepest formula reached, a stretch at a time (`result`): never deep enough to run out of stack, where a chain
 * of about 450 did and left every formula along it unread.
 */
const MAX_DEPTH = 24;

/** A range of at most this many cells is read whole, however far past the sheet's cells it goes. */
const MAX_WHOLE_RANGE_CELLS = 65_536;

interface CellAt {
  sheet: string;
  row: number;
  column: number;
}

type Call = (name: string, args: unknown[]) => unknown;

/** What a parser asks of the evaluator computing at the time. */
interface Hooks {
  cell(ref: CellPosition): FormulaInput;
  range(ref: RangeRef): FormulaInput[][];
  variable(name: string, sheet: string | undefined): Ref | undefined;
  /** A function called, which `call` (the library's own) computes. */
  call(name: string, args: unknown[], call: Call): unknown;
}

let active: Hooks | undefined;

/**
 * One parser per depth, shared by every evaluator (each costs 5-8 ms to make), asking the one computing at the
 * time (`active`). One per depth: the library's parser is not re-entrant (a parse inside another replaces the
 * outer's tokens and position, so the outer one went on reading the inner formula's).
 */
const parsers: Parser[] = [];

function parserAt(depth: number): Parser {
  let parser = parsers[depth];
  if (!parser) {
    const { FormulaParser } = formulaLibrary();
    parser = new FormulaParser({
      functions: extraFunctions(),
      onCell: (ref) => (active as Hooks).cell(ref),
      onRange: (ref) => (active as Hooks).range(ref),
      onVariable: (name, sheet) => (active as Hooks).variable(name, sheet),
    });
    // OFFSET is handed its first argument as the reference itself, as INDEX is (offset.ts).
    (
      parser as unknown as { funsNeedContextAndNoDataRetrieve: string[] }
    ).funsNeedContextAndNoDataRetrieve.push('OFFSET');
    const withCalls = parser as Parser & { callFunction: Call };
    const call = withCalls.callFunction.bind(parser);
    withCalls.callFunction = (name, args) => (active as Hooks).call(name, args, call);
    parsers[depth] = parser;
  }
  return parser;
}

export class WorkbookEvaluator {
  readonly #sheets = new Map<string, SheetCells>();
  readonly #names: DefinedNames;
  readonly #tables: readonly TableInfo[];
  readonly #hooks: Hooks = {
    cell: (ref) => this.#cell(ref.sheet, ref.row, ref.col),
    range: (ref) => this.#range(ref),
    variable: (name, sheet) => this.#variable(name, sheet),
    call: (name, args, call) => this.#call(name, args, call),
  };
  readonly #callReader: CallReader = {
    cell: (ref) => this.#cell(ref.sheet, ref.row, ref.col),
    rangeWithoutSubtotals: (ref) => this.#rangeWithoutSubtotals(ref),
  };
  /** Calls answered so far, by call-memo.ts `callKey`. */
  readonly #calls = new Map<string, unknown>();
  /** Per-row lookups over whole ranges (lookup-index.ts), reading arguments as the library does. */
  readonly #lookups = new LookupIndexes({
    range: (ref) => this.#range({ sheet: ref.sheet ?? '', from: ref.from, to: ref.to }),
    cell: (ref) => this.#cell(ref.sheet, ref.row, ref.col),
  });
  #depth = 0;
  /** Set when a formula MAX_DEPTH deep needs one not computed yet: every formula under way gives up, unsaved. */
  #deferred: CellAt | undefined;
  /** Results so far, per tab; `null` marks a cell being computed (a cycle) or one that cannot be. */
  readonly #results = new Map<string, Map<number, FormulaResult | null>>();
  #position = { sheet: '', row: 1, col: 1 };

  readonly #indexing: boolean;
  readonly #cellBudget: number;

  /**
   * `lookupIndexes: false` leaves every lookup to its function (what the indexes are checked against);
   * `cellBudget` is what one formula may read and make (cell-budget.ts).
   */
  constructor(
    sheets: readonly SheetCells[],
    names: readonly DefinedName[],
    tables: readonly TableInfo[],
    options: { lookupIndexes?: boolean; cellBudget?: number } = {},
  ) {
    for (const sheet of sheets) this.#sheets.set(sheet.name.toLowerCase(), sheet);
    this.#names = new DefinedNames(names);
    this.#tables = tables;
    this.#indexing = options.lookupIndexes ?? true;
    this.#cellBudget = options.cellBudget ?? DEFAULT_CELL_BUDGET;
  }

  /**
   * The result of the formula at (row, column) of `sheet`, computed once (undefined: cannot be computed). A chain
   * deeper than MAX_DEPTH is computed from the deepest formula reached back up, a stack of cells to compute; one
   * met again on that stack is a cycle, and reads as "cannot compute".
   */
  result(sheet: string, row: number, column: number): FormulaResult | undefined {
    if (this.#depth > 0) return this.#resultOnce(sheet, row, column);
    const outer = active;
    active = this.#hooks;
    try {
      return this.#resultFromTop(sheet, row, column);
    } finally {
      active = outer;
    }
  }

  #resultFromTop(sheet: string, row: number, column: number): FormulaResult | undefined {
    const stack: CellAt[] = [{ sheet, row, column }];
    const idOf = (cell: CellAt) => `${cell.sheet.toLowerCase()}!${key(cell.row, cell.column)}`;
    const onStack = new Set([idOf(stack[0]!)]);
    while (stack.length > 0) {
      const cell = stack.at(-1)!;
      this.#resultOnce(cell.sheet, cell.row, cell.column);
      const deferred = this.#deferred;
      if (!deferred) {
        stack.pop();
        continue;
      }
      this.#deferred = undefined;
      const id = idOf(deferred);
      if (onStack.has(id)) this.#resultsOf(deferred.sheet).set(key(deferred.row, deferred.column), null);
      else {
        onStack.add(id);
        stack.push(deferred);
      }
    }
    return this.#resultOnce(sheet, row, column);
  }

  #resultOnce(sheet: string, row: number, column: number): FormulaResult | undefined {
    const cells = this.#sheets.get(sheet.toLowerCase());
    if (!cells) return undefined;
    const results = this.#resultsOf(cells.name);
    const k = key(row, column);
    if (results.has(k)) return results.get(k) ?? undefined;
    const formula = cells.pending(row, column);
    if (formula === undefined) return undefined;
    results.set(k, null); // a cycle reaching this cell again reads it as "cannot compute"
    const computed = this.#compute(cells.name, row, column, formula);
    if (this.#deferred || budgetSpent()) {
      // Given up: to be computed again once what it waits for is, or, when the formula that read it ran out of
      // its budget, when it is asked for with a budget of its own.
      results.delete(k);
      return undefined;
    }
    results.set(k, computed ?? null);
    return computed;
  }

  #resultsOf(sheet: string): Map<number, FormulaResult | null> {
    let results = this.#results.get(sheet);
    if (!results) {
      results = new Map();
      this.#results.set(sheet, results);
    }
    return results;
  }

  #compute(sheet: string, row: number, column: number, formula: string): FormulaResult | undefined {
    const outer = this.#position;
    const position = { sheet, row, col: column };
    this.#position = position;
    const parser = parserAt(this.#depth);
    this.#depth++;
    try {
      const refs = resolveStructuredRefs(formula, { sheet, row, column }, this.#tables);
      const text = withPlainNumbers(withoutAbsoluteMarks(this.#names.spelled(refs, sheet)));
      const { value, spent } = withCellBudget(this.#cellBudget, () => parser.parse(text, position, true));
      if (spent) return undefined;
      // Asked only of a result that is a range's cells: whether the cell is an array formula costs a write a
      // look at the sheet's row.
      const plain = () => !this.#sheets.get(sheet.toLowerCase())?.arrayFormula?.(row, column);
      return toResult(implicitIntersection(value, row, column, plain));
    } catch {
      return undefined; // a function it lacks, a syntax it does not read: the cell reads as null
    } finally {
      this.#depth--;
      this.#position = outer;
    }
  }

  #cell(sheetName: string | undefined, row: number, column: number): FormulaInput {
    return this.#valueIn(this.#sheetOf(sheetName), row, column);
  }

  #sheetOf(sheetName: string | undefined): SheetCells {
    const cells = this.#sheets.get((sheetName || this.#position.sheet).toLowerCase());
    if (!cells) throw formulaLibrary().FormulaError.REF;
    return cells;
  }

  #valueIn(cells: SheetCells, row: number, column: number): FormulaInput {
    if (cells.pending(row, column) !== undefined) {
      if (this.#deferred) throw formulaLibrary().FormulaError.NA; // giving up: no more work
      if (this.#depth >= MAX_DEPTH && !this.#resultsOf(cells.name).has(key(row, column))) {
        this.#deferred = { sheet: cells.name, row, column };
        throw formulaLibrary().FormulaError.NA;
      }
      const computed = this.result(cells.name, row, column);
      if (!computed) throw formulaLibrary().FormulaError.NA;
      return computed.kind === 'error' ? errorValue(computed.value) : computed.value;
    }
    return cells.value(row, column);
  }

  /**
   * The tab is looked up once, and each row made at its width: a range of a whole column is every row of it.
   * Made afresh at every call, never shared between formulas: a library function may write into its arguments.
   */
  #range(ref: RangeRef): FormulaInput[][] {
    const cells = this.#sheetOf(ref.sheet);
    const left = ref.from.col;
    const extent = { rows: ref.to.row - ref.from.row + 1, columns: ref.to.col - left + 1 };
    // A range of a few cells is read whole, blanks past the sheet's last row included. A larger one (`A:A` goes to
    // the sheet's edge) stops where its cells stop, the rest marked blank (range-extent.ts).
    const whole = extent.rows * extent.columns <= MAX_WHOLE_RANGE_CELLS;
    const bottom = whole ? ref.to.row : Math.min(ref.to.row, Math.max(cells.bottom, ref.from.row));
    const right = whole ? ref.to.col : Math.min(ref.to.col, Math.max(cells.right, ref.from.col));
    const out: FormulaInput[][] = new Array(Math.max(0, bottom - ref.from.row + 1));
    spendCells(out.length, Math.max(0, right - left + 1));
    for (let r = ref.from.row, i = 0; r <= bottom; r++, i++) {
      const line: FormulaInput[] = new Array(Math.max(0, right - left + 1));
      for (let c = left; c <= right; c++) line[c - left] = this.#valueIn(cells, r, c);
      out[i] = line;
    }
    return withOrigin(withExtent(out, extent), { row: ref.from.row, column: left });
  }

  #rangeWithoutSubtotals(ref: RangeRef): FormulaInput[][] {
    const grid = this.#range(ref); // made afresh: blanked in place
    const cells = this.#sheetOf(ref.sheet);
    if (!cells.formula) return grid;
    grid.forEach((line, i) => {
      for (let j = 0; j < line.length; j++)
        if (isSubtotalFormula(cells.formula!(ref.from.row + i, ref.from.col + j))) line[j] = null;
    });
    return grid;
  }

  /**
   * A call over ranges answered once (call-memo.ts). A call that reads a formula with no result to give (being
   * computed: a cycle; or given up: a deferral) ends in a throw as its ranges are read, so is never kept: what a
   * call answers, it answers from final values.
   */
  #call(name: string, args: unknown[], call: Call): unknown {
    const rewritten = rewrittenCall(name, args, this.#callReader);
    if (rewritten) {
      return rewritten instanceof formulaLibrary().FormulaError
        ? rewritten
        : this.#call(rewritten.name, rewritten.args, call);
    }
    const refused = pastItsBound(name, args, this.#callReader);
    if (refused) return refused;
    const lifted = liftedCall(name, args, call, (ref) => this.#range(ref), formulaLibrary().FormulaError);
    if (lifted !== undefined) return lifted;
    const indexed = this.#indexing ? this.#lookups.answer(name, args, this.#position.sheet) : undefined;
    if (indexed) return indexed.value;
    const key = callKey(name, args, this.#position.sheet);
    if (key === undefined) return bounded(call(name, args));
    if (this.#calls.has(key)) return this.#calls.get(key);
    const result = bounded(call(name, args));
    if (keepable(result) && !budgetSpent() && this.#calls.size < MAX_KEPT_CALLS) this.#calls.set(key, result);
    return result;
  }

  /** A defined name (local to the formula's tab first, then workbook-wide) or a table's name alone. */
  #variable(name: string, sheetName: string | undefined): Ref | undefined {
    const lower = name.toLowerCase();
    const defined = this.#names.find(name, sheetName || this.#position.sheet);
    if (defined) return refFromText(defined.formula, this.#position.sheet);
    const table = this.#tables.find((t) => t.name.toLowerCase() === lower);
    if (!table) return undefined;
    const top = table.area.top + (table.headerRow ? 1 : 0);
    const bottom = table.area.bottom - (table.totalsRow ? 1 : 0);
    return {
      sheet: table.sheet,
      from: { row: top, col: table.area.left },
      to: { row: bottom, col: table.area.right },
    };
  }
}

export { key as cellKey };

/**
 * A function's answer held to what a cell can hold: an array it made counts against the formula's budget (the
 * library's MMULT of a column by a row makes every cell), and a text longer than Excel's longest is #VALUE!, as
 * Excel answers CONCAT or TEXTJOIN past it.
 */
function bounded(result: unknown): unknown {
  spendOn(result);
  if (typeof result === 'string' && result.length > EXCEL_MAX_CELL_CHARS)
    return formulaLibrary().FormulaError.VALUE;
  return result;
}

function errorValue(text: string): FormulaErrorValue {
  return new (formulaLibrary().FormulaError)(text);
}
