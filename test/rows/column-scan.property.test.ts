/**
 * A long column's first searches on a snapshot read its rows (column-scan.ts); the second starts its index
 * behind, and the searches after the index is built read no row. Whichever way a search goes, `search` keeps the
 * rows whose folded text contains the folded needle, `search_exact` (and `where`'s `=`/`in`) the rows whose text
 * is one of the forms as they are, `starts with` the rows whose folded text starts so: the plain rules of
 * docs/api.md, applied row by row here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runNow, STEP_ROWS } from '../../server/lib/steps.ts';
import { foldText } from '../../server/rows/collation.ts';
import {
  type CellReader,
  indexBuilding,
  matchRowsSteps,
  rowsWhereFolded,
  rowsWithForms,
  SCAN_FIRST_ROWS,
  stringForm,
} from '../../server/rows/match.ts';
import type { CellValue } from '../../server/sources/source.ts';

const CHARS = ['a', 'B', 'é', 'E', 'ß', 's', '\u0000', '1', '0', '.', ' ', 'Ø'];
const text = (maxLength: number) => fc.string({ unit: fc.constantFrom(...CHARS), maxLength });
const cellValue: fc.Arbitrary<CellValue> = fc.oneof(
  { weight: 4, arbitrary: text(5) },
  { weight: 1, arbitrary: fc.constantFrom('Zoë', 'ZOE', 'Straße', 'strasse', 'a\u0000b', '') },
  { weight: 2, arbitrary: fc.integer({ min: -20, max: 120 }) },
  { weight: 1, arbitrary: fc.constantFrom(0.5, 1e21, -0) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** A column just long enough to be scanned first: a pool of values repeated in a shuffled-looking order. */
const column = fc
  .tuple(fc.array(cellValue, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 997 }))
  .map(([pool, step]) =>
    Array.from({ length: SCAN_FIRST_ROWS + 50 }, (_, r) => pool[(r * step) % pool.length]!),
  );

type Spec = { owner: object; rowCount: number; col: number; read: CellReader };

/** Asks three times of one snapshot: twice by scanning, then (its index built behind) through the index. */
async function threeWays(
  values: CellValue[],
  exact: boolean,
  ask: (spec: Spec) => Uint32Array,
): Promise<number[][]> {
  const owner = {};
  let reads = 0;
  const read: CellReader = (row) => {
    reads++;
    return values[row]!;
  };
  const spec = { owner, rowCount: values.length, col: 0, read };
  const results: number[][] = [];
  for (const expectReads of [true, true, false]) {
    if (!expectReads) await indexBuilding(exact, owner, 0);
    reads = 0;
    results.push([...ask(spec)]);
    expect(reads > 0, expectReads ? 'a scan reads the rows' : 'the index reads none').toBe(expectReads);
  }
  return results;
}

const rowsWhere = (values: CellValue[], keep: (s: string) => boolean): number[] =>
  values.flatMap((v, r) => (keep(stringForm(v)) ? [r] : []));

describe('a long column, scanned first, then through its index', () => {
  it('search keeps the rows whose folded text contains the folded needle, every way', async () => {
    await fc.assert(
      fc.asyncProperty(
        column,
        fc.oneof(text(3), fc.constantFrom('1', 'zoe', 'STRASSE', 'true', '')),
        async (values, needle) => {
          const folded = foldText(needle);
          const expected = rowsWhere(values, (s) => foldText(s).includes(folded));
          const ask = (spec: Spec) => runNow(matchRowsSteps({ ...spec, exact: false, value: needle }));
          for (const result of await threeWays(values, false, ask)) expect(result).toEqual(expected);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('search_exact and where `in` keep the rows whose text is one of the forms, every way', async () => {
    await fc.assert(
      fc.asyncProperty(
        column,
        fc.array(fc.oneof(text(3), fc.constantFrom('0', '1e+21', 'true', 'Zoë')), { maxLength: 3 }),
        async (values, picked) => {
          const forms = [...picked, stringForm(values[7]!)];
          const expected = rowsWhere(values, (s) => forms.includes(s));
          const ask = (spec: Spec) => runNow(rowsWithForms(spec, forms));
          for (const result of await threeWays(values, true, ask)) expect(result).toEqual(expected);
        },
      ),
      { numRuns: 30 },
    );
  });

  it("where's starts with tests each row's folded text, every way", async () => {
    await fc.assert(
      fc.asyncProperty(column, text(2), async (values, prefix) => {
        const folded = foldText(prefix);
        const expected = rowsWhere(values, (s) => foldText(s).startsWith(folded));
        const ask = (spec: Spec) => runNow(rowsWhereFolded(spec, (f) => f.startsWith(folded)));
        for (const result of await threeWays(values, false, ask)) expect(result).toEqual(expected);
      }),
      { numRuns: 30 },
    );
  });

  it('stops the oldest of three index builds running at once; its column is scanned again, rightly', async () => {
    // Columns long enough that no build ends within one slice of the event loop (lib/pacer.ts), so the three run
    // at once: a script that writes and searches twice in a loop starts one per snapshot.
    const rows = STEP_ROWS * 5;
    const tabs = [0, 1, 2].map((t) => {
      const values: CellValue[] = Array.from({ length: rows }, (_, r) => `v${t}-${(r * 7919) % rows}`);
      let reads = 0;
      const read: CellReader = (row) => {
        reads++;
        return values[row]!;
      };
      return { spec: { owner: {}, rowCount: rows, col: 0, read }, values, reads: () => reads };
    });
    const ask = (spec: Spec) => runNow(matchRowsSteps({ ...spec, exact: false, value: '-12' }));
    for (const tab of tabs) for (let i = 0; i < 2; i++) ask(tab.spec); // the second ask starts the build
    const builds = tabs.map((tab) => indexBuilding(false, tab.spec.owner, 0));
    expect(builds.every((b) => b !== undefined)).toBe(true);
    await Promise.all(builds);
    // The first was stopped and forgotten: a search scans its rows again, and finds what a plain reading finds.
    expect(indexBuilding(false, tabs[0]!.spec.owner, 0)).toBeUndefined();
    for (const [t, tab] of tabs.entries()) {
      const before = tab.reads();
      const found = [...ask(tab.spec)];
      expect(found).toEqual(rowsWhere(tab.values, (v) => v.includes('-12')));
      expect(tab.reads() > before, `tab ${t} read its rows`).toBe(t === 0);
    }
  });
});
