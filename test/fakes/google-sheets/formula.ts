// Formula results, computed with fast-formula-parser over the spreadsheet's current values.
// Recalculated after every write (the fake's books are small), a few passes for chains.
import { createRequire } from 'node:module';
import type { CellValue } from './cell.ts';
import type { Book, Sheet } from './store.ts';

type ParserOptions = {
  onCell: (ref: { sheet: string; row: number; col: number }) => unknown;
  onRange: (ref: {
    sheet: string;
    from: { row: number; col: number };
    to: { row: number; col: number };
  }) => unknown[][];
};
type Parser = { parse: (text: string, position: { sheet: string; row: number; col: number }) => unknown };

const require = createRequire(import.meta.url);
const FormulaParser = require('fast-formula-parser') as {
  new (options: ParserOptions): Parser;
  FormulaError: new (...args: unknown[]) => { _error: string };
};

const plain = (value: CellValue | undefined): unknown => {
  if (!value) return null;
  if (value.kind === 'error') return null;
  return value.value === '' ? null : value.value;
};

function toCellValue(result: unknown): CellValue {
  const first = Array.isArray(result) ? (Array.isArray(result[0]) ? result[0][0] : result[0]) : result;
  if (first instanceof FormulaParser.FormulaError) return { kind: 'error', value: first._error };
  if (typeof first === 'number') return { kind: 'number', value: first };
  if (typeof first === 'boolean') return { kind: 'bool', value: first };
  if (first === null || first === undefined) return { kind: 'string', value: '' };
  return { kind: 'string', value: String(first) };
}

export function recalculate(book: Book): void {
  const byTitle = (title: string): Sheet | undefined => book.sheets.find((s) => s.title === title);
  const parser = new FormulaParser({
    onCell: ({ sheet, row, col }) => plain(byTitle(sheet)?.grid.get(row - 1, col - 1)?.value),
    onRange: ({ sheet, from, to }) => {
      const target = byTitle(sheet);
      const rows: unknown[][] = [];
      const lastRow = Math.min(to.row, target?.rowCount ?? 0);
      const lastCol = Math.min(to.col, target?.columnCount ?? 0);
      for (let r = from.row; r <= lastRow; r++) {
        const line: unknown[] = [];
        for (let c = from.col; c <= lastCol; c++) line.push(plain(target?.grid.get(r - 1, c - 1)?.value));
        rows.push(line);
      }
      return rows;
    },
  });
  const formulas = book.sheets.flatMap((sheet) =>
    [...sheet.grid.entries()]
      .filter(([, , cell]) => cell.formula !== undefined)
      .map((entry) => ({ sheet, entry })),
  );
  for (let pass = 0; pass < 3 && formulas.length > 0; pass++) {
    for (const { sheet, entry } of formulas) {
      const [row, col, cell] = entry;
      let result: unknown;
      try {
        result = parser.parse((cell.formula ?? '=').slice(1), {
          sheet: sheet.title,
          row: row + 1,
          col: col + 1,
        });
      } catch (error) {
        result =
          error instanceof FormulaParser.FormulaError ? error : new FormulaParser.FormulaError('#ERROR!');
      }
      cell.value = toCellValue(result);
    }
  }
}
