/**
 * Moving a formula to another cell, as copying it does: relative references (no `$`) move by the same rows
 * and columns, absolute ones stay. Used to give each cell of a shared formula its own text. Like
 * formula-refs.ts a tokenizer: string literals, function names, structured and external references are left alone.
 */
import { columnLetter } from '../../header.ts';
import { columnNumber } from './cell-ref.ts';

const SHEET = String.raw`(?:'(?:[^']|'')+'|[A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_.\u00C0-\uFFFF]*)!`;
const REF = new RegExp(
  String.raw`(?<![A-Za-z0-9_.$!'\]\u00C0-\uFFFF])(${SHEET})?(?:(\$?)([A-Za-z]{1,3})(\$?)(\d+)(?::(\$?)([A-Za-z]{1,3})(\$?)(\d+))?|(\$?)(\d+):(\$?)(\d+))(?![A-Za-z0-9_(\[!.])`,
  'g',
);

function moveColumn(absolute: string, letters: string, by: number): string {
  if (absolute === '$' || by === 0) return `${absolute}${letters}`;
  return columnLetter(Math.max(1, columnNumber(letters) + by));
}

function moveRow(absolute: string, row: string, by: number): string {
  if (absolute === '$' || by === 0) return `${absolute}${row}`;
  return String(Math.max(1, Number(row) + by));
}

function translateSegment(text: string, rows: number, columns: number): string {
  return text.replace(REF, (match: string, ...g: (string | undefined)[]) => {
    const sheet = g[0] ?? '';
    if (g[2] !== undefined) {
      const [, c1, col1, r1, row1, c2, col2, r2, row2] = g as string[];
      const first = `${moveColumn(c1 as string, col1 as string, columns)}${moveRow(r1 as string, row1 as string, rows)}`;
      if (col2 === undefined) return `${sheet}${first}`;
      return `${sheet}${first}:${moveColumn(c2 as string, col2, columns)}${moveRow(r2 as string, row2 as string, rows)}`;
    }
    const [ra, rowA, rb, rowB] = g.slice(9, 13) as string[];
    if (rowA === undefined) return match;
    return `${sheet}${moveRow(ra as string, rowA, rows)}:${moveRow(rb as string, rowB as string, rows)}`;
  });
}

/** The formula as it reads after moving it `rows` down and `columns` right. */
export function translateFormula(formula: string, rows: number, columns: number): string {
  let out = '';
  let i = 0;
  while (i < formula.length) {
    const quote = formula.indexOf('"', i);
    if (quote < 0) {
      out += translateSegment(formula.slice(i), rows, columns);
      break;
    }
    out += translateSegment(formula.slice(i, quote), rows, columns);
    let end = quote + 1;
    while (end < formula.length) {
      if (formula[end] === '"') {
        if (formula[end + 1] === '"') end += 2;
        else break;
      } else end++;
    }
    out += formula.slice(quote, end + 1);
    i = end + 1;
  }
  return out;
}
