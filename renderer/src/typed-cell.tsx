/**
 * One value in a table of rows, as the preview and the query bar show it: its text (an empty cell blank), with a
 * class by its type (numbers right-aligned, booleans in italics: styles.css).
 */
import type { CellValue } from './types.ts';

export function TypedCell({ value }: { value: CellValue }) {
  const text = value === null ? '' : typeof value === 'string' ? value : String(value);
  return <td class={`v-${value === null ? 'null' : typeof value}`}>{text}</td>;
}
