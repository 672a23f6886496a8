/**
 * OFFSET(reference, rows, cols, [height], [width]): the range `rows` below and `cols` right of the reference's
 * top-left cell, as tall and wide as the reference unless said. Neither library has it; spreadsheets use it for
 * ranges that grow with their data (`SUM(OFFSET(B1,1,0,COUNT(B:B),1))`, a defined name of the same). It answers
 * a reference, as INDEX does, so the function around it reads the cells (within the formula's budget:
 * cell-budget.ts). The parser hands it its first argument as the reference itself (evaluator.ts `parserAt`).
 */
import { EXCEL_MAX_COLUMNS, EXCEL_MAX_ROWS } from '../excel-grid.ts';
import { numberFromText } from './number-text.ts';
import { formulaLibrary } from './parser.ts';

interface Cell {
  row: number;
  col: number;
}
interface Reference {
  ref?: { sheet?: string; row?: number; col?: number; from?: Cell; to?: Cell };
}
interface Context {
  utils: { extractRefValue(arg: unknown): { val: unknown } };
}

export function offset(
  context: Context,
  reference: Reference | null,
  rows: unknown,
  cols: unknown,
  height?: unknown,
  width?: unknown,
): unknown {
  const { FormulaError } = formulaLibrary();
  const ref = reference?.ref;
  const from = ref?.from ?? (ref?.row !== undefined ? { row: ref.row, col: ref.col! } : undefined);
  if (!ref || !from) return FormulaError.VALUE;
  const to = ref.to ?? from;
  const number = (arg: unknown, otherwise: number): number | undefined => {
    if (arg === null || arg === undefined) return otherwise;
    const v = context.utils.extractRefValue(arg).val;
    if (v === null || v === undefined || v === '') return otherwise;
    const n =
      typeof v === 'number'
        ? v
        : typeof v === 'boolean'
          ? Number(v)
          : typeof v === 'string'
            ? numberFromText(v)
            : undefined;
    return n === undefined || !Number.isFinite(n) ? undefined : Math.trunc(n);
  };
  const down = number(rows, 0);
  const across = number(cols, 0);
  const tall = number(height, to.row - from.row + 1);
  const wide = number(width, to.col - from.col + 1);
  if (down === undefined || across === undefined || tall === undefined || wide === undefined)
    return FormulaError.VALUE;
  const top = from.row + down;
  const left = from.col + across;
  const bottom = top + tall - 1;
  const right = left + wide - 1;
  if (tall < 1 || wide < 1 || top < 1 || left < 1 || bottom > EXCEL_MAX_ROWS || right > EXCEL_MAX_COLUMNS)
    return FormulaError.REF;
  const sheet = ref.sheet;
  if (tall === 1 && wide === 1) return { ref: { sheet, row: top, col: left } };
  return { ref: { sheet, from: { row: top, col: left }, to: { row: bottom, col: right } } };
}
