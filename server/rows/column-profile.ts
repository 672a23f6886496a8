/**
 * What a tab's columns hold, for a caller that has not read its rows (`GET /v1/sheets/{sheetId}`'s `columns`):
 * each column's name, the type of its typed values and a few of them. Pure, and computed once per snapshot.
 *
 * Bounded on huge tabs: the type and examples come from at most the first `VALUES_PER_COLUMN` non-empty values of
 * each column, found within the first `ROW_WINDOW_CELLS` cells of the tab (at least `MIN_ROW_WINDOW` rows), so a
 * million-row tab costs what a few tens of thousands of rows do, and an empty column does not scan the whole tab.
 */
import type { CellValue, TabSnapshot } from '../sources/source.ts';

export type ColumnType = 'number' | 'boolean' | 'date' | 'text' | 'mixed' | 'empty';

export interface ColumnProfile {
  name: string;
  type: ColumnType;
  /** Up to `EXAMPLES` distinct non-empty values, in row order; text longer than `EXAMPLE_CHARS` is cut. */
  examples: CellValue[];
}

export const VALUES_PER_COLUMN = 1_000;
export const ROW_WINDOW_CELLS = 1_000_000;
export const MIN_ROW_WINDOW = 1_000;
export const EXAMPLES = 3;
export const EXAMPLE_CHARS = 80;

/**
 * A date as the typed values give it (serial-dates.ts, `DateSystem.iso`): `2024-03-01`, `2024-03-01T09:30:00`,
 * with `.sss` when the milliseconds are not zero, or `09:30:00` for a time-only cell. Text written so in a
 * `.csv` file reads the same and counts as a date too: the type is what the values look like.
 */
const ISO_DATE = /^(\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{3})?)?|\d{2}:\d{2}:\d{2}(\.\d{3})?)$/;

const profiles = new WeakMap<TabSnapshot, ColumnProfile[]>();

/** The profile of each column of `tab`, in header order; the same array for the same snapshot. */
export function columnProfiles(tab: TabSnapshot): ColumnProfile[] {
  let cached = profiles.get(tab);
  if (!cached) {
    cached = tab.header.map((name, column) => profileColumn(tab.typed, name, column, rowWindow(tab)));
    profiles.set(tab, cached);
  }
  return cached;
}

function rowWindow(tab: TabSnapshot): number {
  const byCells = Math.floor(ROW_WINDOW_CELLS / Math.max(1, tab.header.length));
  return Math.min(tab.typed.length, Math.max(MIN_ROW_WINDOW, byCells));
}

function profileColumn(typed: readonly CellValue[][], name: string, column: number, rows: number) {
  const types = new Set<ColumnType>();
  const examples: CellValue[] = [];
  const seen = new Set<string>();
  let values = 0;
  for (let r = 0; r < rows && values < VALUES_PER_COLUMN; r++) {
    const value = typed[r]?.[column] ?? null;
    if (value === null || value === '') continue;
    values++;
    types.add(typeOf(value));
    const identity = `${typeof value}:${String(value)}`;
    if (examples.length < EXAMPLES && !seen.has(identity)) {
      seen.add(identity);
      examples.push(typeof value === 'string' ? cut(value) : value);
    }
  }
  const type: ColumnType = types.size === 0 ? 'empty' : types.size > 1 ? 'mixed' : [...types][0]!;
  return { name, type, examples };
}

function typeOf(value: string | number | boolean): ColumnType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return ISO_DATE.test(value) ? 'date' : 'text';
}

/** At most `EXAMPLE_CHARS` characters (code points, so no half of an emoji), the last an ellipsis when cut. */
function cut(text: string): string {
  if (text.length <= EXAMPLE_CHARS) return text;
  // Twice as many code units as characters kept always hold more than that many characters, however long the text.
  const chars = Array.from(text.slice(0, EXAMPLE_CHARS * 2 + 1));
  return chars.length <= EXAMPLE_CHARS ? text : `${chars.slice(0, EXAMPLE_CHARS - 1).join('')}…`;
}
