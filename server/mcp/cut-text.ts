/**
 * Long text in a listing is cut so one cell cannot fill an agent's context window: the first `max` characters,
 * then a marker saying how long the whole is and how to get it (`get_row` returns cells whole).
 */
import type { CellValue } from '../sources/source.ts';

export function cutMarker(whole: number, row: number, column: string): string {
  return ` …[cut: ${whole} characters in all; get_row with row ${row} and fields ["${column}"] returns the whole cell]`;
}

/** The row with every text over `max` characters cut; `cut` counts the cells it shortened. */
export function cutLongText(
  values: Record<string, unknown>,
  row: number,
  max: number,
): { values: Record<string, unknown>; cut: number } {
  let cut = 0;
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(values)) {
    if (typeof value === 'string' && value.length > max) {
      out[column] = value.slice(0, max) + cutMarker(value.length, row, column);
      cut++;
    } else out[column] = value as CellValue;
  }
  return { values: out, cut };
}
