/**
 * SUBTOTAL(function_num, ref1, ...) as Excel computes it: the function its number names (1-11, and 101-111, which
 * leave out rows hidden by hand: every row counts here, as the service reads no row's visibility) over the refs,
 * leaving out the cells of the refs that hold a SUBTOTAL or AGGREGATE themselves, so a grand total over a list
 * with subtotal rows counts each row once. The parser had SUBTOTAL as a stub: no answer at all.
 */

import { argumentValue, type CallReader } from './call-reader.ts';
import { isFormulaError, numberOf } from './number-argument.ts';
import { type FormulaErrorValue, formulaLibrary, type RangeRef } from './parser.ts';

const BY_NUMBER = [
  'AVERAGE',
  'COUNT',
  'COUNTA',
  'MAX',
  'MIN',
  'PRODUCT',
  'STDEV',
  'STDEVP',
  'SUM',
  'VAR',
  'VARP',
];

/** A formula another SUBTOTAL leaves out of its refs. */
const SUBTOTAL_FORMULA = /^\s*(?:_xlfn\.)?(?:SUBTOTAL|AGGREGATE)\s*\(/i;

export const isSubtotalFormula = (text: string | undefined): boolean =>
  text !== undefined && SUBTOTAL_FORMULA.test(text);

type Ref = { sheet?: string; row?: number; col?: number; from?: RangeRef['from']; to?: RangeRef['to'] };

/** The call SUBTOTAL stands for (its refs read, as arrays), or the error it answers. */
export function subtotalCall(
  args: unknown[],
  read: CallReader,
): { name: string; args: unknown[] } | FormulaErrorValue {
  const [which, ...refs] = args;
  const n = numberOf(argumentValue(which, read));
  if (isFormulaError(n)) return n;
  const code = Math.trunc(n);
  const name = BY_NUMBER[(code > 100 ? code - 100 : code) - 1];
  if (!name || refs.length === 0) return formulaLibrary().FormulaError.VALUE;
  return {
    name,
    args: refs.map((arg) => {
      const r = (arg as { ref?: Ref } | null)?.ref;
      if (r?.from && r.to) return read.rangeWithoutSubtotals(r as RangeRef);
      if (r?.row !== undefined && r.col !== undefined)
        return read.rangeWithoutSubtotals({
          sheet: r.sheet ?? '',
          from: { row: r.row, col: r.col },
          to: { row: r.row, col: r.col },
        });
      return arg;
    }),
  };
}
