/**
 * One formula computed over a tab whose A1 holds `a1`: the formula sits in B1 (formulas/evaluator.ts, as the
 * service computes a file's formulas).
 */
import {
  type FormulaResult,
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';

export function evaluateBesideA1(formula: string, a1: unknown = null): FormulaResult | undefined {
  const cells: SheetCells = {
    name: 'T',
    bottom: 1,
    right: 2,
    value: (row, column) => (row === 1 && column === 1 ? a1 : null) as never,
    pending: (row, column) => (row === 1 && column === 2 ? formula : undefined),
  };
  return new WorkbookEvaluator([cells], [], []).result('T', 1, 2);
}
