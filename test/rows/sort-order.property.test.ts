/**
 * `sort`'s order (rows/sort.ts) against a plain comparison, for any column: numbers (negative, fractional, huge,
 * tiny, -0, repeated) first by value, then texts as search folds them (case and accents ignored, digits by
 * value), then false, then true; empty cells last in both directions; ties in sheet order. In formatted mode a
 * number displayed as '' is empty. And a query prepared a step at a time beforehand (`prepareQuery`, what the
 * list and aggregate routes do) answers exactly as the same query run at once, while the event loop gets turns
 * during the preparation of a tab larger than a step.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STEP_ROWS } from '../../server/lib/steps.ts';
import { compareFolded, foldText } from '../../server/rows/collation.ts';
import { prepareQuery, runQuery, type TabRows } from '../../server/rows/engine.ts';
import { parseListQuery } from '../../server/rows/query-params.ts';
import type { CellValue } from '../../server/sources/source.ts';

const cell: fc.Arbitrary<CellValue> = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -50, max: 50 }),
  fc.constantFrom(0, -0, 0.1, -0.1, 1e308, -1e308, 5e-324, 2 ** 53, 100_006, 100_007),
  fc.constantFrom(
    'a',
    'A',
    'é',
    'E',
    'item2',
    'item10',
    'item02',
    'Zoë',
    'zoe',
    'a1',
    'a01',
    '\u0001a',
    'Ωmega',
    '',
  ),
  // Texts of digits and punctuation: the collation compares runs of digits by value and ignores leading zeros.
  fc.stringMatching(/^[0-9a-c .\-_]{0,6}$/),
  fc.string({ maxLength: 3 }),
  fc.boolean(),
  fc.constant(null),
);

const OPTS = { defaultLimit: 1000, maxLimit: 1000 };

/** Where a value sorts among kinds: numbers, texts, false, true. */
const kind = (v: CellValue): number =>
  typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : v === false ? 2 : 3;

function compareValues(a: CellValue, b: CellValue): number {
  if (kind(a) !== kind(b)) return kind(a) - kind(b);
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareFolded(foldText(a), foldText(b));
  return 0;
}

/** The rows (1-based) in the order a plain comparison gives. */
function expectedOrder(column: CellValue[], empty: (row: number) => boolean, descending: boolean): number[] {
  const rows = column.map((_, r) => r);
  const full = rows.filter((r) => !empty(r));
  full.sort((a, b) => (descending ? -1 : 1) * compareValues(column[a]!, column[b]!) || a - b);
  return [...full, ...rows.filter(empty)].map((r) => r + 1);
}

describe('sort order', () => {
  it('orders any column as a plain comparison does, typed and formatted', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cell, fc.boolean()), { maxLength: 200 }),
        fc.boolean(),
        (cells, descending) => {
          const column = cells.map(([v]) => v);
          // Formatted text: the value's own, or '' where the second draw says the number is shown as nothing.
          const formatted = cells.map(([v, hidden]) => [
            v === null || (hidden && typeof v === 'number') ? '' : String(v),
          ]);
          const tab: TabRows = { header: ['v'], typed: column.map((v) => [v]), formatted };
          const sort = descending ? '-v' : 'v';
          const typedOrder = runQuery(tab, parseListQuery({ sort }, OPTS)).rows.map((r) => r.index);
          expect(typedOrder).toEqual(expectedOrder(column, (r) => column[r] === null, descending));
          const shownOrder = runQuery(tab, parseListQuery({ sort, values: 'formatted' }, OPTS)).rows.map(
            (r) => r.index,
          );
          expect(shownOrder).toEqual(expectedOrder(column, (r) => formatted[r]![0] === '', descending));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('orders a long column of texts that hardly repeat, and one whose texts repeat, as a plain comparison does', () => {
    // Over a few thousand text cells a column is judged: mostly distinct texts are sorted with their repeats,
    // repeating ones through a map of the distinct. Both must give the plain order, ties in sheet order.
    const word = fc.oneof(
      fc.stringMatching(/^[0-9a-cA-C é.-]{0,7}$/),
      fc.constantFrom('a01', 'a1', 'Zoë', 'zoe', 'ZOE', 'Ωmega', '\u0001b', 'b'),
    );
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 6_000, maxLength: 6_000 }),
        fc.integer({ min: 1, max: 6_000 }),
        fc.boolean(),
        (words, distinct, descending) => {
          // `distinct` words cycled: from a column of a few texts to one of all different texts.
          const column: CellValue[] = words.map((_, r) => words[r % distinct]!);
          const tab: TabRows = {
            header: ['v'],
            typed: column.map((v) => [v]),
            formatted: column.map((v) => [String(v)]),
          };
          const query = parseListQuery(
            { sort: descending ? '-v' : 'v', limit: '1000', offset: '2500' },
            OPTS,
          );
          const order = runQuery(tab, query).rows.map((r) => r.index);
          expect(order).toEqual(expectedOrder(column, () => false, descending).slice(2500, 3500));
        },
      ),
      { numRuns: 12 },
    );
  });

  it('answers a prepared query as one run at once, the event loop getting turns while it is prepared', async () => {
    const rows = STEP_ROWS * 3 + 17;
    const header = ['id', 'name', 'amount'];
    const typed: CellValue[][] = Array.from({ length: rows }, (_, r) => [
      (r * 7919) % rows,
      `Name ${(r * 31) % 997} ${r % 2 === 0 ? 'Éva' : 'eva'}`,
      r % 11 === 0 ? null : ((r * 13) % 501) / 4 - 60,
    ]);
    const fresh = (): TabRows => ({
      header,
      typed: typed.slice(),
      formatted: typed.map((r) => r.map((v) => (v === null ? '' : String(v)))),
    });
    const queries = [
      { search: 'name:eva', sort: '-amount,id', limit: '50', offset: '20' },
      { search: 'id:12', sort: 'name' },
      { search_exact: 'amount:0.25', sort: '-id' },
      { sort: 'amount,-name', limit: '100', offset: '1000' },
      { search: 'name:éva 1', sort: 'id', values: 'formatted' },
    ];
    for (const raw of queries) {
      const query = parseListQuery(raw, OPTS);
      const atOnce = runQuery(fresh(), query);
      const tab = fresh();
      let turns = 0;
      let counting = true;
      const count = (): void => {
        turns++;
        if (counting) setImmediate(count);
      };
      setImmediate(count);
      await prepareQuery(tab, query);
      counting = false;
      expect(turns, JSON.stringify(raw)).toBeGreaterThan(0);
      const prepared = runQuery(tab, query);
      expect(prepared.total).toBe(atOnce.total);
      expect(prepared.rows).toEqual(atOnce.rows);
    }
  });

  it('leaves a name the tab lacks for the query to refuse', async () => {
    const tab: TabRows = {
      header: ['a'],
      typed: Array.from({ length: STEP_ROWS + 1 }, (_, r) => [r]),
      formatted: Array.from({ length: STEP_ROWS + 1 }, (_, r) => [String(r)]),
    };
    const query = parseListQuery({ search: 'b:1', sort: 'a' }, OPTS);
    await prepareQuery(tab, query);
    expect(() => runQuery(tab, query)).toThrow(/Unknown field "b" in search/);
  });
});
