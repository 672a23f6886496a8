/**
 * Calls of a pure function over the same ranges are answered once per computation (formulas/call-memo.ts): a
 * "share of the total" in every row reads the column once, with every result as computing each call gives it.
 * Ranges holding formulas not computed yet (a deep chain, computed a stretch at a time) give the same; a call
 * naming a single cell is not one to keep.
 */
import { describe, expect, it } from 'vitest';
import { callKey } from '../../../../server/sources/workbook/formulas/call-memo.ts';
import {
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';

const ROWS = 2_000;

/** Column A values 1..ROWS from row 2, column B `=A{r}/SUM(A:A)`; counts the values read. */
function shares(): { cells: SheetCells; reads: () => number } {
  let reads = 0;
  return {
    reads: () => reads,
    cells: {
      name: 'T',
      bottom: ROWS + 1,
      right: 2,
      value: (row, column) => {
        reads++;
        return row > 1 && column === 1 ? row - 1 : null;
      },
      pending: (row, column) => (row > 1 && column === 2 ? `A${row}/SUM(A:A)` : undefined),
    },
  };
}

describe('calls over the same ranges', () => {
  it('are answered once: a share of the total in every row reads the column once, each result right', () => {
    const { cells, reads } = shares();
    const evaluator = new WorkbookEvaluator([cells], [], []);
    const total = (ROWS * (ROWS + 1)) / 2;
    for (let row = 2; row <= ROWS + 1; row++)
      expect(evaluator.result('T', row, 2)).toEqual({
        kind: 'number',
        value: Number(((row - 1) / total).toPrecision(15)),
      });
    // The column once (ROWS + 1 cells, each read twice at most: its value, and as A{r}), not once per row.
    expect(reads()).toBeLessThan(4 * (ROWS + 1));
  });

  it('are right where the ranges hold formulas not computed yet, a chain deeper than is computed at once', () => {
    // B2..B201: a chain read from its far end (B{r} = B{r+1} + 1); D1 and D2 sum it, D1 first.
    const formulas: Record<string, string> = { D1: 'SUM(B2:B201)', D2: 'SUM(B2:B201)*2', B201: '1' };
    for (let r = 2; r < 201; r++) formulas[`B${r}`] = `B${r + 1}+1`;
    const cells: SheetCells = {
      name: 'T',
      bottom: 201,
      right: 4,
      value: () => null,
      pending: (row, column) => formulas[`${String.fromCharCode(64 + column)}${row}`],
    };
    const evaluator = new WorkbookEvaluator([cells], [], []);
    const sum = (200 * 201) / 2;
    expect(evaluator.result('T', 1, 4)).toEqual({ kind: 'number', value: sum });
    expect(evaluator.result('T', 2, 4)).toEqual({ kind: 'number', value: 2 * sum });
  });

  it('are kept only for pure functions over ranges and constants', () => {
    const range = { ref: { from: { row: 1, col: 1 }, to: { row: 9, col: 1 } } };
    const cell = { ref: { row: 2, col: 1 } };
    expect(callKey('SUM', [range], 'T')).toBeDefined();
    expect(callKey('sumifs', [range, range, '>1'], 'T')).toBe(callKey('SUMIFS', [range, range, '>1'], 't'));
    expect(callKey('SUMIFS', [range, range, '>1'], 'T')).not.toBe(
      callKey('SUMIFS', [range, range, '>2'], 'T'),
    );
    expect(callKey('SUM', [range], 'T')).not.toBe(callKey('SUM', [range], 'U'));
    expect(callKey('COUNTIF', [range, cell], 'T')).toBeUndefined();
    expect(callKey('SUM', [1, 2], 'T')).toBeUndefined();
    expect(callKey('RAND', [], 'T')).toBeUndefined();
    expect(callKey('OFFSET', [range, 1, 0], 'T')).toBeUndefined();
  });
});
