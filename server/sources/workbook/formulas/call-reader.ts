/**
 * What a call the evaluator rewrites (renamed-calls.ts, subtotal.ts) may read of its arguments: the parser hands
 * a function's arguments over unread when the function is called, references as references.
 */
import type { FormulaInput, RangeRef } from './parser.ts';

export interface CallReader {
  cell(ref: { sheet?: string; row: number; col: number }): FormulaInput;
  /** A range's values, the cells holding a SUBTOTAL or AGGREGATE blank. */
  rangeWithoutSubtotals(ref: RangeRef): FormulaInput[][];
}

/** An argument's value: a literal as it is, a cell reference's cell, a range's first cell (as the library reads). */
export function argumentValue(arg: unknown, read: CallReader): unknown {
  const ref = (arg as { ref?: Partial<RangeRef> & { row?: number; col?: number } } | null)?.ref;
  if (ref?.row !== undefined && ref.col !== undefined)
    return read.cell({ sheet: ref.sheet, row: ref.row, col: ref.col });
  if (ref?.from) return read.cell({ sheet: ref.sheet, row: ref.from.row, col: ref.from.col });
  return arg;
}
