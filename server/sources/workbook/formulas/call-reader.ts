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

/** An argument's value: a literal as it is, a cell reference's cell. */
export function argumentValue(arg: unknown, read: CallReader): unknown {
  const ref = (arg as { ref?: { sheet?: string; row?: number; col?: number } } | null)?.ref;
  return ref?.row !== undefined && ref.col !== undefined ? read.cell(ref as never) : arg;
}
