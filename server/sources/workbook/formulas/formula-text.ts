/**
 * Formula text, in one place: the A1 references a formula's text holds, rewritten when rows are deleted
 * (`shiftFormula`, `shiftRange`) or when a formula moves to another cell (`translateFormula`, which gives
 * each cell of a shared formula its own text), and read as the rows a formula depends on (`precedentsOf`,
 * recalculation's input). Formula text comes from the sheet's `<f>` elements (ooxml/sheet-scan.ts, shared
 * formulas resolved in ooxml/formula-cells.ts).
 *
 * A tokenizer, not a parser: it skips "string literals", recognises `Sheet!`/`'Sheet name'!` prefixes, and
 * leaves function names (`LOG10(`), structured references (`Tbl1[...]`) and external workbook references
 * (`[1]Sheet!A1`) alone. Rules follow Excel: references below deleted rows move up, ranges shrink, a
 * reference to a deleted cell becomes #REF!; a moved formula's relative references (no `$`) move with it.
 */
import { columnLetter } from '../../header.ts';
import { EXCEL_MAX_COLUMNS, EXCEL_MAX_ROWS } from '../excel-grid.ts';
import { columnNumber } from '../ooxml/cell-ref.ts';
import type { RowMap } from '../row-map.ts';

const SHEET = String.raw`(?:'(?:[^']|'')+'|[A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_.\u00C0-\uFFFF]*)!`;
const CELL = String.raw`(\$?)([A-Za-z]{1,3})(\$?)(\d+)`;
const ROWS = String.raw`(\$?)(\d+):(\$?)(\d+)`;
/** Not part of a longer name before; not a function call, table or sheet name after. */
const BEFORE = String.raw`(?<![A-Za-z0-9_.$!'\]\u00C0-\uFFFF])`;
const AFTER = String.raw`(?![A-Za-z0-9_(\[!.])`;
/** A cell, a cell range or a row range, with an optional sheet: groups 1 sheet, 2-9 cells, 10-13 rows. */
const REF = new RegExp(`${BEFORE}(${SHEET})?(?:${CELL}(?::${CELL})?|${ROWS})${AFTER}`, 'g');

/** The formula with `edit` applied to every stretch outside its string literals ("" escapes a quote). */
const outsideStrings = (formula: string, edit: (code: string) => string): string =>
  outside(formula, /"/g, edit);

/**
 * A word standing alone as a defined name does (letters, digits, `_`, `.`; not a cell's address, which no name may
 * be): not after a sheet, a `$`, a `:` or inside a table's `[...]`, nor before `(` (a function), `!` (a sheet),
 * `:` or `[`.
 */
const NAME_WORD =
  /(?<![A-Za-z0-9_.$!'@[\]:\\\u00C0-\uFFFF])[A-Za-z_\\\u00C0-\uFFFF][A-Za-z0-9_.?\\\u00C0-\uFFFF]*(?![A-Za-z0-9_([\]!.:$\\\u00C0-\uFFFF])/g;

/**
 * The longest formula the spelling may make: eight times Excel's longest formula (8,192 characters). Past it a
 * file's names (one of thousands of characters, used a thousand times) would make text of megabytes to parse;
 * the formula is then left as written.
 */
const MAX_SPELLED_LENGTH = 65_536;
const TOO_LONG = Symbol('spelled past its length');

/**
 * The formula with each word that `spell` knows (a defined name: `Qty`, `TaxRate`) replaced by what it answers,
 * outside string literals and quoted sheet names.
 */
export function spellNames(formula: string, spell: (word: string) => string | undefined): string {
  let grown = 0;
  try {
    return outsideQuotes(formula, (code) =>
      code.replace(NAME_WORD, (word) => {
        const spelled = spell(word);
        if (spelled === undefined) return word;
        grown += spelled.length - word.length;
        if (formula.length + grown > MAX_SPELLED_LENGTH) throw TOO_LONG;
        return spelled;
      }),
    );
  } catch (e) {
    if (e !== TOO_LONG) throw e;
    return formula;
  }
}

/**
 * The formula without its `$` marks, which only say how a reference moves when the formula is copied: the parser
 * read `$B:$B` (and `$2:$2`) as no cells at all, so `SUMIF($A:$A,...)` and `VLOOKUP(x,$A:$B,2,0)` answered 0.
 */
export function withoutAbsoluteMarks(formula: string): string {
  return formula.includes('$') ? outsideQuotes(formula, (code) => code.replaceAll('$', '')) : formula;
}

/** A number with an exponent and no sign after its E (`1E3`), and one that starts at its point (`.5`). */
const BARE_EXPONENT = /(?<![\w.])(\d+(?:\.\d*)?|\.\d+)[eE](?=\d)/g;
const LEADING_POINT = /(?<![\w.)\]}])\.(?=\d)/g;
/** Either of them anywhere (in a string too): most formulas have neither, and are left as they are at once. */
const MAY_NEED_PLAIN_NUMBERS = /(?<![\w.])(?:\d+(?:\.\d*)?|\.\d+)[eE]\d|(?<![\w.)\]}])\.\d/;

/**
 * The formula's numbers as the parser reads them: `1E3` as `1E+3` and `.5` as `0.5`. Excel reads both as typed
 * and saves them in the second form, but a formula written through the API or by a program keeps what was
 * written, and the parser took `=A2*1E3` or `=.5*B2` for a syntax error (the cell read as not computed).
 */
export function withPlainNumbers(formula: string): string {
  if (!MAY_NEED_PLAIN_NUMBERS.test(formula)) return formula;
  return outsideQuotes(formula, (code) => code.replace(BARE_EXPONENT, '$1E+').replace(LEADING_POINT, '0.'));
}

/** The formula with `edit` applied to every stretch outside its string literals and quoted sheet names. */
const outsideQuotes = (formula: string, edit: (code: string) => string): string =>
  outside(formula, /["']/g, edit);

/** `edit` applied to every stretch of `formula` outside the quoted parts that begin with a match of `quotes`. */
function outside(formula: string, quotes: RegExp, edit: (code: string) => string): string {
  let out = '';
  for (let i = 0; i < formula.length; ) {
    quotes.lastIndex = i;
    const quote = quotes.exec(formula)?.index ?? formula.length;
    out += edit(formula.slice(i, quote));
    const end = quote < formula.length ? quotedEnd(formula, quote) : quote;
    out += formula.slice(quote, end);
    i = end;
  }
  return out;
}

/** Index after the quote that closes the one at `start` (`"` or `'`; doubled, it stands for itself). */
export function quotedEnd(text: string, start: number): number {
  const quote = text[start];
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return text.length;
}

// --- rows deleted -------------------------------------------------------------------------------------

export interface ShiftContext {
  /** Name of the sheet whose rows were deleted. */
  sheetName: string;
  /** True when the formula lives on that sheet, so unqualified references point at it. */
  onSameSheet: boolean;
  rows: RowMap;
}

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

/**
 * The formula with its references to `ctx.sheetName` adjusted for the deleted rows. One that writes no number
 * as large as the first deleted row names no row the delete moves: it is answered as it is, without the
 * tokenizer (half the formulas of a tab with one in every row, for a delete in the middle).
 */
export function shiftFormula(formula: string, ctx: ShiftContext): string {
  if (largestNumber(formula) < ctx.rows.first) return formula;
  return outsideStrings(formula, (code) => shiftSegment(code, ctx));
}

/** The largest run of digits written in `text` (0 when none): an upper bound of the rows it names. */
export function largestNumber(text: string): number {
  let largest = 0;
  let current = -1;
  for (let i = 0; i < text.length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit >= 0 && digit <= 9) current = (current < 0 ? 0 : current * 10) + digit;
    else if (current >= 0) {
      if (current > largest) largest = current;
      current = -1;
    }
  }
  return current > largest ? current : largest;
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

// --- a formula moved ----------------------------------------------------------------------------------

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

/** The formula as it reads after moving it `rows` down and `columns` right (as copying it does). */
export function translateFormula(formula: string, rows: number, columns: number): string {
  return outsideStrings(formula, (code) => translateSegment(code, rows, columns));
}

// --- what a formula reads -----------------------------------------------------------------------------

/** An area a formula reads: rows top..bottom, columns left..right (1-based, inclusive). */
export interface ReadArea {
  /** Lower-cased tab name. */
  sheet: string;
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/** Areas read, or 'always' when the text cannot tell. */
export type Precedents = ReadArea[] | 'always';

/** As REF, the sheet's name captured (quoted 1, bare 2), whole columns too: 3-6 cells, 7-8 rows, 9-10 columns. */
const NAMED_SHEET = String.raw`(?:'((?:[^']|'')+)'|([A-Za-z_\u00C0-\uFFFF][A-Za-z0-9_.\u00C0-\uFFFF]*))!`;
const READ_CELL = String.raw`\$?([A-Za-z]{1,3})\$?(\d+)`;
const READ_REF = new RegExp(
  String.raw`${BEFORE}(?:${NAMED_SHEET})?(?:${READ_CELL}(?::${READ_CELL})?|\$?(\d+):\$?(\d+)|\$?([A-Za-z]{1,3}):\$?([A-Za-z]{1,3}))${AFTER}`,
  'g',
);
/** Functions whose inputs are computed, or whose result changes without any input changing. */
const DYNAMIC = /\b(?:INDIRECT|OFFSET|NOW|TODAY|RAND|RANDBETWEEN|CELL|INFO)\s*\(/i;

/**
 * What a formula reads, as areas per tab, so a write recomputes only the formulas it can have changed.
 * A formula whose inputs the text does not show (a defined name, a table, INDIRECT, OFFSET, a volatile
 * function such as TODAY) is recomputed after every write. `names`: defined names and table names,
 * lower-cased.
 */
export function precedentsOf(formula: string, sheet: string, names: ReadonlySet<string>): Precedents {
  const code = withoutStrings(formula);
  if (code.includes('[') || DYNAMIC.test(code)) return 'always';
  for (const word of code.match(/[A-Za-z_\\\u00C0-\uFFFF][A-Za-z0-9_.\\\u00C0-\uFFFF]*/g) ?? []) {
    if (names.has(word.toLowerCase())) return 'always';
  }
  const areas: ReadArea[] = [];
  for (const m of code.matchAll(READ_REF)) {
    const tab = (m[1]?.replace(/''/g, "'") ?? m[2] ?? sheet).toLowerCase();
    if (m[4] !== undefined) {
      const first = Number(m[4]);
      const last = m[6] === undefined ? first : Number(m[6]);
      // A column reference that is not one (`LOG10` is a function, caught by the lookahead) needs no care here.
      const a = columnNumber(m[3]!);
      const b = m[5] === undefined ? a : columnNumber(m[5]);
      if (a > EXCEL_MAX_COLUMNS) continue;
      const [left, right] = [Math.min(a, b), Math.min(EXCEL_MAX_COLUMNS, Math.max(a, b))];
      areas.push({ sheet: tab, top: Math.min(first, last), bottom: Math.max(first, last), left, right });
    } else if (m[7] !== undefined) {
      const a = Number(m[7]);
      const b = Number(m[8]);
      areas.push({
        sheet: tab,
        top: Math.min(a, b),
        bottom: Math.max(a, b),
        left: 1,
        right: EXCEL_MAX_COLUMNS,
      });
    } else if (m[9] !== undefined) {
      const a = Math.min(EXCEL_MAX_COLUMNS, columnNumber(m[9]));
      const b = Math.min(EXCEL_MAX_COLUMNS, columnNumber(m[10]!));
      areas.push({ sheet: tab, top: 1, bottom: EXCEL_MAX_ROWS, left: Math.min(a, b), right: Math.max(a, b) });
    }
  }
  return areas;
}

/** The formula with every "string literal" blanked (same length), so nothing inside one reads as a reference. */
function withoutStrings(formula: string): string {
  return formula.replace(/"(?:[^"]|"")*"/g, (s) => `"${' '.repeat(s.length - 2)}"`);
}
