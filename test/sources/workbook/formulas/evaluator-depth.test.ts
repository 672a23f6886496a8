/**
 * Formulas reading formulas not computed yet, which the evaluator computes first, within the formula that needs
 * them: right whatever the two formulas look like (the library's parser is not re-entrant: one parser per depth),
 * and never deeper than the stack allows (a chain computed from its far end, a stretch at a time), cycles of any
 * length cut. The evaluator is pure: its tabs here are plain cells.
 */
import { describe, expect, it } from 'vitest';
import {
  type SheetCells,
  WorkbookEvaluator,
} from '../../../../server/sources/workbook/formulas/evaluator.ts';

/** A tab of values and formulas (no `=`) by A1 reference. */
function tab(name: string, cells: Record<string, number | string>, bottom: number): SheetCells {
  const at = (row: number, column: number) => `${String.fromCharCode(64 + column)}${row}`;
  return {
    name,
    bottom,
    right: 3,
    value: (row, column) => {
      const v = cells[at(row, column)];
      return typeof v === 'number' ? v : null;
    },
    pending: (row, column) => {
      const v = cells[at(row, column)];
      return typeof v === 'string' ? v : undefined;
    },
  };
}

describe('a formula computed within another', () => {
  it('gives its own result, and the outer formula reads on in its own text', () => {
    // A2 needs B3 first: a parse inside a parse, of another length and shape.
    const cells = { A2: 'B3*10+C2', B3: 'SUM(C2:C4)+MAX(C2,C3)*0', C2: 1, C3: 2, C4: 3 };
    const evaluator = new WorkbookEvaluator([tab('T', cells, 4)], [], []);
    expect(evaluator.result('T', 2, 1)).toEqual({ kind: 'number', value: 61 });
    expect(evaluator.result('T', 3, 2)).toEqual({ kind: 'number', value: 6 });
  });

  it('inside a function of ranges too (SUMIFS over formulas not computed yet)', () => {
    const cells = { A5: 'SUMIFS(B2:B4,C2:C4,">1")', B2: 'C2*2', B3: 'C3*2', B4: 'C4*2', C2: 1, C3: 2, C4: 3 };
    const evaluator = new WorkbookEvaluator([tab('T', cells, 5)], [], []);
    expect(evaluator.result('T', 5, 1)).toEqual({ kind: 'number', value: 10 });
  });
});

describe('a chain computed from its far end', () => {
  it('of 5,000 links, each reading the next, gives every balance', () => {
    const rows = 5_000;
    const cells: Record<string, number | string> = {};
    for (let r = 2; r <= rows + 1; r++) {
      cells[`A${r}`] = r;
      cells[`B${r}`] = r === rows + 1 ? `A${r}` : `B${r + 1}+A${r}`;
    }
    const evaluator = new WorkbookEvaluator([tab('T', cells, rows + 1)], [], []);
    const sumFrom = (r: number) => ((rows + 1) * (rows + 2)) / 2 - ((r - 1) * r) / 2;
    expect(evaluator.result('T', 2, 2)).toEqual({ kind: 'number', value: sumFrom(2) });
    expect(evaluator.result('T', 2_500, 2)).toEqual({ kind: 'number', value: sumFrom(2_500) });
  });

  it('from a summary on another tab, read first', () => {
    const rows = 3_000;
    const ledger: Record<string, number | string> = { A2: 1, B2: 'A2' };
    for (let r = 3; r <= rows + 1; r++) {
      ledger[`A${r}`] = 1;
      ledger[`B${r}`] = `B${r - 1}+A${r}`;
    }
    const summary = tab('Summary', { B2: `Ledger!B${rows + 1}*2` }, 2);
    const evaluator = new WorkbookEvaluator([summary, tab('Ledger', ledger, rows + 1)], [], []);
    expect(evaluator.result('Summary', 2, 2)).toEqual({ kind: 'number', value: 2 * rows });
  });

  it('that is a cycle longer than the depth computed within, cut: no result on it, the rest computed', () => {
    const cells: Record<string, number | string> = { C2: 'A2*3', A2: 7 };
    for (let r = 2; r <= 101; r++) cells[`B${r}`] = `B${r + 1}+1`;
    cells.B102 = 'B2+1';
    const evaluator = new WorkbookEvaluator([tab('T', cells, 102)], [], []);
    for (const r of [2, 50, 102]) {
      const result = evaluator.result('T', r, 2);
      expect(result === undefined || result.kind === 'error').toBe(true);
    }
    expect(evaluator.result('T', 2, 3)).toEqual({ kind: 'number', value: 21 });
  });
});
