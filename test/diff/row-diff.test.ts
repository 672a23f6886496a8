import { describe, expect, it } from 'vitest';
import {
  type DiffOptions,
  diffRows,
  type RowChange,
  rowHash,
  rowsEqual,
} from '../../server/diff/row-diff.ts';
import type { CellValue } from '../../server/sources/source.ts';
import { applyDiff } from '../helpers/apply-diff.ts';

/** Rows from a string, one single-cell row per letter: 'ABA' -> [['A'], ['B'], ['A']]. */
function letters(s: string): CellValue[][] {
  return [...s].map((c) => [c]);
}

/** n distinct rows of a few mixed columns. */
function table(n: number, tag = 'r'): CellValue[][] {
  return Array.from({ length: n }, (_, i) => [
    i + 1,
    `${tag}${i}`,
    i % 2 === 0,
    i % 3 === 0 ? null : i * 1.5,
  ]);
}

/** Trailing nulls dropped: the diff's notion of row equality made comparable with toEqual. */
function normalize(rows: readonly CellValue[][]): CellValue[][] {
  return rows.map((row) => {
    let end = row.length;
    while (end > 0 && row[end - 1] === null) end--;
    return row.slice(0, end);
  });
}

/** Diffs, checks applyDiff(old, diff) gives the new rows and each change's values, returns the diff. */
function diff(oldRows: CellValue[][], newRows: CellValue[][], options?: DiffOptions): RowChange[] {
  const changes = diffRows(oldRows, newRows, options);
  expect(normalize(applyDiff(oldRows, changes))).toEqual(normalize(newRows));
  for (const c of changes) {
    if (c.kind === 'deleted') expect(c.before).toBe(oldRows[c.row_index - 1]);
    else expect(c.after).toBe(newRows[c.row_index - 1]);
    if (c.kind === 'updated') expect(rowsEqual(c.before!, c.after!)).toBe(false);
  }
  return changes;
}

/** Compact form: 'd3' = deleted old row 3, 'i5' = inserted new row 5, 'u2' = updated new row 2. */
function short(changes: readonly RowChange[]): string[] {
  return changes.map((c) => `${c.kind[0]}${c.row_index}`);
}

function d(oldRows: CellValue[][], newRows: CellValue[][], options?: DiffOptions): string[] {
  return short(diff(oldRows, newRows, options));
}

/** The same letters diffed by letters(). */
function dl(a: string, b: string, options?: DiffOptions): string[] {
  return d(letters(a), letters(b), options);
}

describe('diffRows: basics', () => {
  it('gives no change for identical or both empty tabs', () => {
    expect(d(table(50), table(50))).toEqual([]);
    expect(d([], [])).toEqual([]);
  });

  it('deleting row 3 of 1,000 is exactly one deletion of row 3', () => {
    const old = table(1000);
    const next = old.filter((_, i) => i !== 2).map((r) => [...r]);
    const changes = diff(old, next);
    expect(changes).toEqual([{ kind: 'deleted', row_index: 3, before: old[2], after: null }]);
  });

  it('inserting a row in the middle of 1,000 is one insertion at its new index', () => {
    const old = table(1000);
    const row: CellValue[] = [0, 'new', false, null];
    const next = [...old.slice(0, 500), row, ...old.slice(500)];
    expect(diff(old, next)).toEqual([{ kind: 'inserted', row_index: 501, before: null, after: row }]);
  });

  it('editing one cell is one update at that row, with before and after', () => {
    const old = table(1000);
    const next = old.map((r) => [...r]);
    next[699]![1] = 'changed';
    expect(diff(old, next)).toEqual([
      { kind: 'updated', row_index: 700, before: old[699], after: next[699] },
    ]);
  });

  it('handles deletes, inserts and edits at the start, middle and end', () => {
    expect(dl('ABCDE', 'BCDE')).toEqual(['d1']);
    expect(dl('ABCDE', 'ABDE')).toEqual(['d3']);
    expect(dl('ABCDE', 'ABCD')).toEqual(['d5']);
    expect(dl('ABCDE', 'XABCDE')).toEqual(['i1']);
    expect(dl('ABCDE', 'ABXCDE')).toEqual(['i3']);
    expect(dl('ABCDE', 'ABCDEX')).toEqual(['i6']);
    expect(dl('ABCDE', 'XBCDE')).toEqual(['u1']);
    expect(dl('ABCDE', 'ABXDE')).toEqual(['u3']);
    expect(dl('ABCDE', 'ABCDX')).toEqual(['u5']);
  });

  it('a moved row is one deletion at its old index and one insertion at its new index', () => {
    expect(dl('ABCDEFGH', 'ACDEFGBH')).toEqual(['d2', 'i7']); // B moved down
    expect(dl('ABCDEFGH', 'AGBCDEFH')).toEqual(['i2', 'd7']); // G moved up
    expect(dl('ABCDEFGH', 'BCDEFGHA')).toEqual(['d1', 'i8']); // first to last
    expect(dl('ABCDEFGH', 'HABCDEFG')).toEqual(['i1', 'd8']); // last to first
  });

  it('swapping two adjacent rows is also a deletion and an insertion, never two updates', () => {
    const changes = dl('ABCDEF', 'ABDCEF');
    expect(changes).toHaveLength(2);
    expect(changes.map((c) => c[0]).sort()).toEqual(['d', 'i']);
    expect(dl('AB', 'BA')).toHaveLength(2);
  });

  it('keeps the documented order: hunk by hunk, updates before the hunk’s deletions or insertions', () => {
    expect(dl('ABCDEFG', 'AXCEFYZG')).toEqual(['u2', 'd4', 'i6', 'i7']);
    expect(dl('ABCDEFG', 'AQRSTCDEFG')).toEqual(['u2', 'i3', 'i4', 'i5']);
    expect(dl('ABCDEFG', 'AXFG')).toEqual(['u2', 'd3', 'd4', 'd5']);
  });
});

describe('diffRows: duplicates', () => {
  it('deleting one of three identical rows is one deletion', () => {
    expect(dl('XAAAY', 'XAAY')).toEqual(['d4']);
    expect(dl('AAA', 'AA')).toEqual(['d3']);
    expect(dl('ABABA', 'ABAA')).toHaveLength(1);
  });

  it('inserting a copy of an existing row is one insertion', () => {
    expect(dl('XAY', 'XAAY')).toEqual(['i3']);
    expect(dl('ABC', 'ABCA')).toEqual(['i4']);
    expect(dl('ABC', 'BABC')).toEqual(['i1']);
  });

  it('tabs made only of identical rows', () => {
    expect(dl('AAAAA', 'AAAAAAA')).toEqual(['i6', 'i7']);
    expect(dl('AAAAAAA', 'AAA')).toEqual(['d4', 'd5', 'd6', 'd7']);
    expect(dl('AAAA', 'ABAA')).toEqual(['u2']);
  });

  it('blank rows between content', () => {
    const blank: CellValue[] = [null, null];
    const old: CellValue[][] = [['a', 1], blank, ['b', 2], blank, blank, ['c', 3]];
    const next: CellValue[][] = [['a', 1], blank, blank, ['c', 3]];
    expect(d(old, next)).toEqual(['d3', 'd4']);
  });
});

describe('diffRows: empty tabs and whole-tab changes', () => {
  it('empty old tab: every row inserted', () => {
    expect(dl('', 'ABC')).toEqual(['i1', 'i2', 'i3']);
  });

  it('empty new tab: every row deleted, at its old index', () => {
    expect(dl('ABC', '')).toEqual(['d1', 'd2', 'd3']);
  });

  it('whole tab replaced: rows paired by position as updates, the rest inserted or deleted', () => {
    expect(d(table(5, 'a'), table(5, 'b'))).toEqual(['u1', 'u2', 'u3', 'u4', 'u5']);
    expect(d(table(3, 'a'), table(5, 'b'))).toEqual(['u1', 'u2', 'u3', 'i4', 'i5']);
    expect(d(table(5, 'a'), table(2, 'b'))).toEqual(['u1', 'u2', 'd3', 'd4', 'd5']);
  });

  it('everything changed except the header row kept by the caller: 10,000 rows stay linear', () => {
    const old = table(10_000, 'a');
    const next = table(10_000, 'b');
    const t0 = performance.now();
    const changes = diff(old, next);
    expect(changes).toHaveLength(10_000);
    expect(changes.every((c, i) => c.kind === 'updated' && c.row_index === i + 1)).toBe(true);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});

describe('diffRows: row equality', () => {
  it('a shorter row counts as padded with null', () => {
    expect(d([[1, 'a']], [[1, 'a', null]])).toEqual([]);
    expect(d([[]], [[null, null]])).toEqual([]);
    expect(d([[1, 'a']], [[1, 'a', 'b']])).toEqual(['u1']);
    expect(d([[1, 'a', null, 2]], [[1, 'a']])).toEqual(['u1']);
  });

  it('rows of different lengths in one tab', () => {
    const old: CellValue[][] = [[1], [1, 2], [1, 2, 3], [], [1, 2, 3, 4]];
    const next: CellValue[][] = [[1, null], [1, 2, 3], [null], [1, 2, 3, 4, null], [5]];
    expect(d(old, next)).toEqual(['d2', 'i5']);
  });

  it('cells compare by type and value', () => {
    expect(d([[1]], [['1']])).toEqual(['u1']);
    expect(d([[true]], [['true']])).toEqual(['u1']);
    expect(d([[null]], [['']])).toEqual(['u1']);
    expect(d([[0]], [[false]])).toEqual(['u1']);
    expect(d([['a,b']], [['a', 'b']])).toEqual(['u1']);
    expect(diffRows([[0]], [[-0]])).toEqual([]); // -0 === 0 (toEqual would tell them apart)
    expect(d([[Number.NaN, 'x']], [[Number.NaN, 'x']])).toEqual([]);
    expect(d([[Number.POSITIVE_INFINITY]], [[null]])).toEqual(['u1']);
  });

  it('equal hashes of different rows never merge them (exact comparison on a hash hit)', () => {
    const a: CellValue[] = ['row70283'];
    const b: CellValue[] = ['row509579'];
    expect(rowHash(a)).toBe(rowHash(b));
    expect(rowsEqual(a, b)).toBe(false);
    const x: CellValue[] = ['x'];
    const y: CellValue[] = ['y'];
    expect(d([x, a, y], [x, b, y])).toEqual(['u2']);
    expect(d([x, a, b, y], [x, b, a, y])).toHaveLength(2);
    expect(d([a, x, y, b], [b, x, y, a])).toEqual(['u1', 'u4']);
  });

  it('before and after are the tabs’ own row arrays', () => {
    const old = table(3);
    const next = [old[0]!, [9, 'z', true, null], old[2]!];
    const [change] = diffRows(old, next);
    expect(change!.before).toBe(old[1]);
    expect(change!.after).toBe(next[1]);
  });
});

describe('diffRows: maxCost fallback', () => {
  it('falls back to a positional diff when the edit script is too long', () => {
    // With the search: the rows shared by both tabs are aligned.
    expect(dl('ABCD', 'BADCE')).toEqual(['d1', 'u2', 'i4', 'i5']); // B and D kept
    // Capped: row i against row i, the extra tail inserted.
    expect(dl('ABCD', 'BADCE', { maxCost: 0 })).toEqual(['u1', 'u2', 'u3', 'u4', 'i5']);
    expect(dl('ABCDEF', 'BADC', { maxCost: 1 })).toEqual(['u1', 'u2', 'u3', 'u4', 'd5', 'd6']);
  });

  it('the positional fallback skips rows equal at the same position', () => {
    expect(dl('ABC', 'CBA', { maxCost: 0 })).toEqual(['u1', 'u3']);
  });

  it('the common prefix and suffix are kept out of the fallback', () => {
    expect(dl('XABCY', 'XBAY', { maxCost: 0 })).toEqual(['u2', 'u3', 'd4']);
  });

  it('rows that exist in only one tab cost the search nothing', () => {
    // Every row rewritten: no shared content, so even maxCost 0 gives the content diff.
    expect(dl('ABC', 'XYZW', { maxCost: 0 })).toEqual(['u1', 'u2', 'u3', 'i4']);
    expect(dl('ABCDEF', 'AXCYEF', { maxCost: 0 })).toEqual(['u2', 'u4']);
  });

  it('a shuffled tab of 2,000 rows is capped and stays correct', () => {
    const old = table(2000);
    const next = [...old].reverse();
    const changes = diff(old, next, { maxCost: 100 });
    expect(changes.every((c) => c.kind === 'updated')).toBe(true);
    expect(changes).toHaveLength(2000);
    expect(diff(old, next)).toHaveLength(3998); // uncapped: one row kept, the rest moved
  });
});

describe('applyDiff', () => {
  it('rejects a diff that does not fit the old rows', () => {
    const old = letters('ABC');
    expect(() => applyDiff(old, [{ kind: 'deleted', row_index: 4, before: ['D'], after: null }])).toThrow();
    expect(() => applyDiff(old, [{ kind: 'deleted', row_index: 2, before: ['X'], after: null }])).toThrow();
    expect(() =>
      applyDiff(old, [
        { kind: 'deleted', row_index: 3, before: ['C'], after: null },
        { kind: 'deleted', row_index: 1, before: ['A'], after: null },
      ]),
    ).toThrow(/out of order/);
    expect(() => applyDiff(old, [{ kind: 'inserted', row_index: 5, before: null, after: ['X'] }])).toThrow();
  });

  it('applies an empty diff as a copy of the old rows', () => {
    const old = letters('ABC');
    const out = applyDiff(old, []);
    expect(out).toEqual(old);
    expect(out).not.toBe(old);
  });
});
