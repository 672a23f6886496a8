/**
 * A tab's column profiles (server/rows/column-profile.ts): the types and examples `GET /v1/sheets/{sheetId}` gives,
 * the bounds that keep them cheap on a huge tab, and one computation per snapshot. The HTTP answer on real
 * workbooks is in test/http/v1-sheet-rows.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  columnProfiles,
  MIN_ROW_WINDOW,
  ROW_WINDOW_CELLS,
  VALUES_PER_COLUMN,
} from '../../server/rows/column-profile.ts';
import type { CellValue, TabSnapshot } from '../../server/sources/source.ts';

function tabOf(header: string[], typed: CellValue[][]): TabSnapshot {
  return {
    sourceSheetId: '1',
    name: 'T',
    header,
    headerRow: 1,
    typed,
    formatted: typed.map((r) => r.map((v) => (v === null ? '' : String(v)))),
  };
}

describe('column profiles', () => {
  it('types dates as the typed values give them, and nothing else that looks close', () => {
    const column = (values: CellValue[]) =>
      columnProfiles(
        tabOf(
          ['C'],
          values.map((v) => [v]),
        ),
      )[0]!.type;
    expect(column(['2024-03-01', '2024-03-01T09:30:00', '2024-03-01T09:30:00.250', '09:30:00'])).toBe('date');
    expect(column(['2024-03-01', '3/1/2024'])).toBe('mixed');
    for (const text of ['2024-3-1', '2024-03-01 09:30', '2024-03-01T09:30:00Z', '9:30:00', '20240301']) {
      expect(column([text]), text).toBe('text');
    }
    expect(column([null, '', null])).toBe('empty');
    expect(column([1, true])).toBe('mixed');
  });

  it('keeps 3 distinct examples, a number apart from the same digits as text, long text cut to 80 characters', () => {
    const long = `${'😀'.repeat(100)}`;
    const [numbers, texts] = columnProfiles(
      tabOf(
        ['N', 'T'],
        [
          [1, long],
          [1, '1'],
          ['1', '1'],
          [2, 'z'],
          [3, 'w'],
        ],
      ),
    );
    expect(numbers).toEqual({ name: 'N', type: 'mixed', examples: [1, '1', 2] });
    const cut = texts!.examples[0] as string;
    expect(Array.from(cut)).toHaveLength(80);
    expect(cut).toBe(`${'😀'.repeat(79)}…`);
    expect(texts!.examples.slice(1)).toEqual(['1', 'z']);
  });

  it('looks at the first 1,000 values of a column, within the first million cells of the tab', () => {
    const columns = 50;
    const window = Math.max(MIN_ROW_WINDOW, ROW_WINDOW_CELLS / columns);
    const rows = window + 10;
    const header = Array.from({ length: columns }, (_, c) => `C${c}`);
    const typed: CellValue[][] = Array.from({ length: rows }, (_, r) =>
      header.map((_, c) => (c === 0 ? (r < VALUES_PER_COLUMN ? r : 'after the first thousand') : null)),
    );
    typed[rows - 1]![1] = 'past the window';
    const tab = tabOf(header, typed);
    const [first, second] = columnProfiles(tab);
    expect(first).toEqual({ name: 'C0', type: 'number', examples: [0, 1, 2] });
    expect(second).toEqual({ name: 'C1', type: 'empty', examples: [] });
    expect(columnProfiles(tab)).toBe(columnProfiles(tab));
    // A new snapshot of the same tab is profiled afresh.
    expect(columnProfiles(tabOf(header, typed.slice(rows - 1)))[1]!.type).toBe('text');
  });
});
