/**
 * A function of single values given a range or an array, called once per cell as Excel computes it inside
 * SUMPRODUCT or an array formula: `SUMPRODUCT(LEN(A2:A9))`, `SUMPRODUCT(--ISNUMBER(SEARCH("x",A2:A9)))`,
 * `SUMPRODUCT(IF(A2:A9>5,B2:B9,0))`. The library took the first cell of the range instead. Arrays are paired as
 * the operators pair them (operators.ts `pairwise`): a row or column repeated along a larger one, #N/A past the
 * end of one. Only the functions named here, whose every argument is one value, are called so.
 */
import { eachCell, pairwise } from './operators.ts';
import type { RangeRef } from './parser.ts';

const OF_SINGLE_VALUES = new Set([
  'ABS',
  'CEILING',
  'CHAR',
  'CLEAN',
  'CODE',
  'DATE',
  'DATEVALUE',
  'DAY',
  'EDATE',
  'EOMONTH',
  'EVEN',
  'EXACT',
  'EXP',
  'FIND',
  'FLOOR',
  'HOUR',
  'IF',
  'IFERROR',
  'IFNA',
  'INT',
  'ISBLANK',
  'ISERR',
  'ISERROR',
  'ISEVEN',
  'ISLOGICAL',
  'ISNA',
  'ISNONTEXT',
  'ISNUMBER',
  'ISODD',
  'ISTEXT',
  'LEFT',
  'LEN',
  'LN',
  'LOG',
  'LOG10',
  'LOWER',
  'MID',
  'MINUTE',
  'MOD',
  'MONTH',
  'MROUND',
  'NOT',
  'ODD',
  'POWER',
  'PROPER',
  'QUOTIENT',
  'REPLACE',
  'REPT',
  'RIGHT',
  'ROUND',
  'ROUNDDOWN',
  'ROUNDUP',
  'SEARCH',
  'SECOND',
  'SIGN',
  'SQRT',
  'SUBSTITUTE',
  'TEXT',
  'TIMEVALUE',
  'TRIM',
  'TRUNC',
  'UPPER',
  'VALUE',
  'WEEKDAY',
  'WEEKNUM',
  'YEAR',
]);

/**
 * Functions that came to Excel from its Analysis ToolPak take one cell where they take a range: given a range they
 * are #VALUE! (Excel and LibreOffice alike), and only an array (`EDATE(A2,B2:B9+0)`) is taken cell by cell.
 */
/**
 * What a function asks of a blank cell, answered here: the library's takes a blank it is given as an omitted
 * argument, and ISBLANK of anything but a reference is FALSE to it.
 */
const OF_A_CELL: Record<string, (v: unknown) => boolean> = {
  ISBLANK: (v) => v === null,
  ISNONTEXT: (v) => typeof v !== 'string',
};

const NO_RANGES = new Set(['EDATE', 'EOMONTH', 'MROUND', 'QUOTIENT']);
type Call = (name: string, args: unknown[]) => unknown;

/**
 * The function's answers cell by cell, or undefined when no argument is a range or an array (the call is the
 * library's as it is). `readRange` reads a range argument's cells.
 */
export function liftedCall(
  name: string,
  args: readonly unknown[],
  call: Call,
  readRange: (ref: RangeRef) => unknown[][],
  errors: { NA: unknown; VALUE: unknown },
): unknown {
  const upper = name.toUpperCase();
  if (!OF_SINGLE_VALUES.has(upper)) return undefined;
  const ranges = args.map((arg) => {
    const ref = (arg as { ref?: Partial<RangeRef> } | null)?.ref;
    return ref?.from && ref.to ? (ref as RangeRef) : undefined;
  });
  if (NO_RANGES.has(upper) && ranges.some((ref) => ref !== undefined)) return errors.VALUE;
  const read = args.map((arg, i) => (ranges[i] ? readRange(ranges[i]) : arg));
  const arrays = read.map((v, i) => (Array.isArray(v) ? i : -1)).filter((i) => i >= 0);
  if (arrays.length === 0) return undefined;
  const ofACell = OF_A_CELL[upper];
  if (ofACell && read.length === 1) return eachCell(read[0], ofACell);
  // Pair every array argument's cells into one grid of argument lists, then call once per cell.
  let lists = eachCell(read[arrays[0]!], (v) => [v]);
  for (const i of arrays.slice(1))
    lists = pairwise(lists, read[i], errors.NA, (list, v) => (Array.isArray(list) ? [...list, v] : list));
  return eachCell(lists, (list) => {
    if (!Array.isArray(list)) return list; // past the end of an array: #N/A
    const cells = list as unknown[];
    let next = 0;
    return call(
      name,
      read.map((v, i) => (arrays.includes(i) ? asLiteral(cells[next++]) : v)),
    );
  });
}

/** A cell's value as the library takes a literal argument (a blank as an omitted one). */
const asLiteral = (v: unknown): unknown => v ?? null;
