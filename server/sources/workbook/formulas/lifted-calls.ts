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
  'DAY',
  'EXACT',
  'FIND',
  'IF',
  'IFERROR',
  'INT',
  'ISERR',
  'ISERROR',
  'ISLOGICAL',
  'ISNA',
  'ISNUMBER',
  'ISTEXT',
  'LEFT',
  'LEN',
  'LOWER',
  'MID',
  'MOD',
  'MONTH',
  'NOT',
  'PROPER',
  'RIGHT',
  'ROUND',
  'ROUNDDOWN',
  'ROUNDUP',
  'SEARCH',
  'SIGN',
  'SQRT',
  'TRIM',
  'UPPER',
  'VALUE',
  'WEEKDAY',
  'YEAR',
]);

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
  outside: unknown,
): unknown {
  if (!OF_SINGLE_VALUES.has(name.toUpperCase())) return undefined;
  const read = args.map((arg) => {
    const ref = (arg as { ref?: Partial<RangeRef> } | null)?.ref;
    return ref?.from && ref.to ? readRange(ref as RangeRef) : arg;
  });
  const arrays = read.map((v, i) => (Array.isArray(v) ? i : -1)).filter((i) => i >= 0);
  if (arrays.length === 0) return undefined;
  // Pair every array argument's cells into one grid of argument lists, then call once per cell.
  let lists = eachCell(read[arrays[0]!], (v) => [v]);
  for (const i of arrays.slice(1))
    lists = pairwise(lists, read[i], outside, (list, v) => (Array.isArray(list) ? [...list, v] : list));
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
