import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DiffOptions,
  diffRows,
  diffRowsPaced,
  diffSteps,
  type RowChange,
  rowsEqual,
} from '../../server/diff/row-diff.ts';
import { noteSharedRows, sharedRows } from '../../server/lib/shared-rows.ts';
import { STEP_ROWS } from '../../server/lib/steps.ts';
import type { CellValue } from '../../server/sources/source.ts';
import { applyDiff } from '../helpers/apply-diff.ts';
import { editRows, type RowEdit } from '../helpers/row-edits.ts';

type Row = CellValue[];

// Small alphabets, so equal rows (and rows equal only up to trailing nulls) are common.
const cell = fc.constantFrom<CellValue>(null, 'a', 'b', 1, 2, true);
const POOL: Row[] = [['a'], ['b'], ['a', 1], [], [null, 'b'], [1, 2, true]];
const row: fc.Arbitrary<Row> = fc.oneof(
  fc.constantFrom(...POOL).map((r) => [...r]),
  fc.array(cell, { maxLength: 3 }),
);
const rows = (maxLength: number): fc.Arbitrary<Row[]> => fc.array(row, { maxLength });

type Op = RowEdit;

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('insert' as const), at: fc.nat(), row }),
  fc.record({ t: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ t: fc.constant('update' as const), at: fc.nat(), row }),
  fc.record({ t: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ t: fc.constant('duplicate' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ t: fc.constant('cell' as const), at: fc.nat(), col: fc.nat({ max: 3 }), value: cell }),
);

const edit = editRows;

/** Trailing nulls dropped: the diff's row equality made comparable with toEqual. */
function normalize(rs: readonly Row[]): Row[] {
  return rs.map((r) => {
    let end = r.length;
    while (end > 0 && r[end - 1] === null) end--;
    return r.slice(0, end);
  });
}

/** Length of a longest common subsequence under rowsEqual (plain dynamic programming). */
function lcsLength(a: readonly Row[], b: readonly Row[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (const ra of a) {
    const cur = new Array<number>(b.length + 1).fill(0);
    for (let j = 0; j < b.length; j++) {
      cur[j + 1] = rowsEqual(ra, b[j]!) ? prev[j]! + 1 : Math.max(prev[j + 1]!, cur[j]!);
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The invariants every diff must meet; returns it. */
function checkedDiff(old: Row[], next: Row[], options?: DiffOptions): RowChange[] {
  const changes = diffRows(old, next, options);
  expect(normalize(applyDiff(old, changes))).toEqual(normalize(next));
  for (const c of changes) {
    if (c.kind === 'deleted') expect(c.before).toBe(old[c.row_index - 1]);
    else expect(c.after).toBe(next[c.row_index - 1]);
    if (c.kind === 'updated') expect(rowsEqual(c.before!, c.after!)).toBe(false);
  }
  return changes;
}

function count(changes: readonly RowChange[], kind: RowChange['kind']): number {
  return changes.filter((c) => c.kind === kind).length;
}

const UNIQUE: Row = ['unique row', 42]; // no generated row has this content

describe('diffRows properties', () => {
  it('applyDiff(old, diffRows(old, new)) gives new, and the rows kept form a longest common subsequence', () => {
    fc.assert(
      fc.property(rows(30), fc.array(op, { maxLength: 12 }), (old, ops) => {
        const next = edit(old, ops);
        const changes = checkedDiff(old, next);
        const kept = old.length - count(changes, 'deleted') - count(changes, 'updated');
        expect(kept).toBe(lcsLength(old, next));
      }),
      { numRuns: 1000 },
    );
  });

  it('the same on larger tabs with more distinct rows (deeper Myers recursion)', () => {
    const wide = fc.array(fc.constantFrom<CellValue>(null, 'a', 'b', 'c', 1, 2, 3, false), {
      minLength: 1,
      maxLength: 2,
    });
    fc.assert(
      fc.property(
        fc.array(wide, { maxLength: 200 }),
        fc.array(fc.oneof(op, fc.record({ t: fc.constant('insert' as const), at: fc.nat(), row: wide })), {
          maxLength: 40,
        }),
        (old, ops) => {
          const next = edit(old, ops);
          const changes = checkedDiff(old, next);
          const kept = old.length - count(changes, 'deleted') - count(changes, 'updated');
          expect(kept).toBe(lcsLength(old, next));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('with a tiny maxCost (positional fallback) applyDiff still gives new', () => {
    let fellBack = 0;
    fc.assert(
      fc.property(rows(30), fc.array(op, { maxLength: 12 }), fc.nat({ max: 3 }), (old, ops, maxCost) => {
        const next = edit(old, ops);
        const capped = checkedDiff(old, next, { maxCost });
        if (JSON.stringify(capped) !== JSON.stringify(diffRows(old, next))) fellBack++;
      }),
      { numRuns: 1000 },
    );
    expect(fellBack).toBeGreaterThan(50);
  });

  it('completely unrelated tabs', () => {
    fc.assert(
      fc.property(rows(20), rows(20), fc.nat({ max: 5 }), (old, next, maxCost) => {
        checkedDiff(old, next);
        checkedDiff(old, next, { maxCost });
      }),
      { numRuns: 500 },
    );
  });

  it('deleting a unique row is exactly one deletion at its index', () => {
    fc.assert(
      fc.property(rows(30), fc.nat(), (base, at) => {
        const p = at % (base.length + 1);
        const old = [...base.slice(0, p), UNIQUE, ...base.slice(p)];
        expect(checkedDiff(old, base)).toEqual([
          { kind: 'deleted', row_index: p + 1, before: UNIQUE, after: null },
        ]);
      }),
      { numRuns: 500 },
    );
  });

  it('inserting a unique row is exactly one insertion at its index', () => {
    fc.assert(
      fc.property(rows(30), fc.nat(), (base, at) => {
        const p = at % (base.length + 1);
        const next = [...base.slice(0, p), UNIQUE, ...base.slice(p)];
        expect(checkedDiff(base, next)).toEqual([
          { kind: 'inserted', row_index: p + 1, before: null, after: UNIQUE },
        ]);
      }),
      { numRuns: 500 },
    );
  });

  it('replacing a row by a unique row is exactly one update at its index', () => {
    fc.assert(
      fc.property(rows(30), fc.nat(), (base, at) => {
        fc.pre(base.length > 0);
        const p = at % base.length;
        const next = base.with(p, UNIQUE);
        expect(checkedDiff(base, next)).toEqual([
          { kind: 'updated', row_index: p + 1, before: base[p], after: UNIQUE },
        ]);
      }),
      { numRuns: 500 },
    );
  });

  it('changing any row to different content is exactly one update at its index', () => {
    fc.assert(
      fc.property(rows(30), fc.nat(), row, (base, at, replacement) => {
        fc.pre(base.length > 0);
        const p = at % base.length;
        fc.pre(!rowsEqual(base[p]!, replacement));
        expect(short(checkedDiff(base, base.with(p, replacement)))).toEqual([`u${p + 1}`]);
      }),
      { numRuns: 500 },
    );
  });

  it('deleting or inserting any row, duplicates included, is exactly one change of that kind', () => {
    fc.assert(
      fc.property(rows(30), fc.nat(), row, (base, at, extra) => {
        const p = at % (base.length + 1);
        const bigger = [...base.slice(0, p), extra, ...base.slice(p)];
        const del = checkedDiff(bigger, base);
        expect(short(del)).toHaveLength(1);
        expect(del[0]!.kind).toBe('deleted');
        expect(rowsEqual(del[0]!.before!, extra)).toBe(true);
        const ins = checkedDiff(base, bigger);
        expect(ins).toHaveLength(1);
        expect(ins[0]!.kind).toBe('inserted');
        expect(rowsEqual(ins[0]!.after!, extra)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('diffRowsPaced', () => {
  it('finds exactly what diffRows finds, for any two tabs', async () => {
    await fc.assert(
      fc.asyncProperty(rows(30), fc.array(op, { maxLength: 8 }), async (old, ops) => {
        const next = edit(old, ops);
        expect(await diffRowsPaced(old, next)).toEqual(diffRows(old, next));
      }),
      { numRuns: 300 },
    );
  });

  it('finds exactly what diffRows finds in tabs long enough to be paced, edits near either end or none', async () => {
    const base: Row[] = Array.from({ length: 80_000 }, (_, i) => [i, `r${i % 13}`]);
    const cases: Op[][] = [
      [],
      [{ t: 'cell', at: 40_000, col: 1, value: 'b' }],
      [
        { t: 'delete', at: 40_000 },
        { t: 'insert', at: 45_000, row: ['x'] },
      ],
      [{ t: 'update', at: 79_999, row: ['last'] }],
      [{ t: 'insert', at: 0, row: ['first'] }],
    ];
    for (const ops of cases) {
      const next = edit(base, ops);
      expect(await diffRowsPaced(base, next)).toEqual(diffRows(base, next));
      // The common prefix and suffix give the event loop its turns: a step at least every STEP_ROWS rows (here
      // every edit leaves one of them longer than STEP_ROWS; the middle between them is one step).
      let steps = 0;
      const run = diffSteps(base, next);
      while (!run.next().done) steps++;
      expect(steps).toBeGreaterThanOrEqual(Math.floor(base.length / STEP_ROWS) - 1);
    }
  });
});

describe('rows a write noted as shared with the old version (lib/shared-rows.ts)', () => {
  it('change nothing the diff finds', () => {
    fc.assert(
      fc.property(rows(30), rows(6), fc.nat(), fc.nat(), (old, middle, h, t) => {
        const head = h % (old.length + 1);
        const tail = t % (old.length - head + 1);
        // The new version keeps the old row objects at both ends, as a write's copy does, and says so.
        const next = [...old.slice(0, head), ...middle, ...old.slice(old.length - tail)];
        noteSharedRows(next, old, head, tail);
        expect(sharedRows(old, next)).toEqual({ head, tail });
        expect(diffRows(old, next)).toEqual(
          diffRows(
            old,
            next.map((r) => [...r]),
          ),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('are not compared: the note is taken at its word, and only for the version it names', () => {
    const old: Row[] = [['a'], ['b'], ['c']];
    const next: Row[] = [['x'], ['b'], ['c']];
    expect(short(diffRows(old, next))).toEqual(['u1']);
    noteSharedRows(next, old, 1, 0);
    expect(diffRows(old, next)).toEqual([]);
    expect(short(diffRows([['a'], ['b'], ['c']], next))).toEqual(['u1']);
  });
});

function short(changes: readonly RowChange[]): string[] {
  return changes.map((c) => `${c.kind[0]}${c.row_index}`);
}
