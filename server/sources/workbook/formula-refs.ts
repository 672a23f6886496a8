/**
 * Shifting A1 references when rows are deleted. ExcelJS moves cells but never rewrites formulas, so
 * without this a delete in the middle of a table (say `Total = E5*F5` on every row) would leave every
 * formula below pointing one row too low. Rules follow Excel: references below the deleted rows move up,
 * ranges shrink, and a reference to a deleted cell becomes #REF!.
 *
 * This is a tokenizer, not a parser: it skips "string literals", recognises `Sheet!`/`'Sheet name'!`
 * prefixes, and leaves function names (`LOG10(`), structured references (`Tbl1[...]`) and external
 * workbook references (`[1]Sheet!A1`) alone.
 */
import type { RowMap } from './row-map.ts';

export interface ShiftContext {
  /** Name of the sheet whose rows were deleted. */
  sheetName: string;
  /** True when the formula lives on that sheet, so unqualified references point at it. */
  onSameSheet: boolean;
  rows: RowMap;
}

const SHEET = String.raw`(?:'(?:[^']|'')+'|[A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_.\u00C0-\uFFFF]*)!`;
const CELL = String.raw`(\$?)([A-Za-z]{1,3})(\$?)(\d+)`;
const CELL2 = String.raw`(\$?)([A-Za-z]{1,3})(\$?)(\d+)`;
const ROWS = String.raw`(\$?)(\d+):(\$?)(\d+)`;
const REF = new RegExp(
  String.raw`(?<![A-Za-z0-9_.$!'\]\u00C0-\uFFFF])(${SHEET})?(?:${CELL}(?::${CELL2})?|${ROWS})(?![A-Za-z0-9_(\[!.])`,
  'g',
);

function unquoteSheet(prefix: string): string {
  const name = prefix.slice(0, -1);
  return name.startsWith("'") ? name.slice(1, -1).replace(/''/g, "'") : name;
}

function shiftSegment(text: string, ctx: ShiftContext): string {
  const target = ctx.sheetName.toLowerCase();
  return text.replace(REF, (match: string, ...g: (string | undefined)[]) => {
    const prefix = g[0];
    const applies = prefix ? unquoteSheet(prefix).toLowerCase() === target : ctx.onSameSheet;
    if (!applies) return match;
    const p = prefix ?? '';
    if (g[2] !== undefined) {
      const [, c1, col1, r1, row1, c2, col2, r2, row2] = g as string[];
      if (col2 === undefined) {
        const row = ctx.rows.row(Number(row1));
        return row === null ? '#REF!' : `${p}${c1}${col1}${r1}${row}`;
      }
      const span = ctx.rows.span(Math.min(Number(row1), Number(row2)), Math.max(Number(row1), Number(row2)));
      return span === null ? '#REF!' : `${p}${c1}${col1}${r1}${span[0]}:${c2}${col2}${r2}${span[1]}`;
    }
    const [ra, rowA, rb, rowB] = g.slice(9, 13) as string[];
    const span = ctx.rows.span(Math.min(Number(rowA), Number(rowB)), Math.max(Number(rowA), Number(rowB)));
    return span === null ? '#REF!' : `${p}${ra}${span[0]}:${rb}${span[1]}`;
  });
}

/** The formula with its references to `ctx.sheetName` adjusted for the deleted rows. */
export function shiftFormula(formula: string, ctx: ShiftContext): string {
  let out = '';
  let i = 0;
  while (i < formula.length) {
    const quote = formula.indexOf('"', i);
    if (quote < 0) {
      out += shiftSegment(formula.slice(i), ctx);
      break;
    }
    out += shiftSegment(formula.slice(i, quote), ctx);
    // copy the string literal verbatim ("" is an escaped quote inside it)
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

const RANGE = /^(\$?[A-Za-z]{1,3})(\$?)(\d+)(?::(\$?[A-Za-z]{1,3})(\$?)(\d+))?$/;

/** A plain range like `A2:C5` or `B7` (merges, conditional formats, filters) after the delete; null if gone. */
export function shiftRange(range: string, rows: RowMap): string | null {
  const m = RANGE.exec(range.trim());
  if (!m) return range;
  const [, col1, d1, row1, col2, d2, row2] = m as unknown as string[];
  if (col2 === undefined) {
    const row = rows.row(Number(row1));
    return row === null ? null : `${col1}${d1}${row}`;
  }
  const span = rows.span(Number(row1), Number(row2));
  return span === null ? null : `${col1}${d1}${span[0]}:${col2}${d2}${span[1]}`;
}
