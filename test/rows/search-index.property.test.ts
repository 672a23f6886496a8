/**
 * `search` and `search_exact` go through a per-column index (distinct values, their rows, a hash table for
 * whole values, a trigram filter over long texts). These properties hold it to the plain rules of docs/api.md,
 * applied row by row: `search` keeps a row whose folded text contains the folded needle, `search_exact` one
 * whose text is the needle as it is; the filters are ANDed, then sorted, then paged.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldText } from '../../server/rows/collation.ts';
import { runQuery, type TabRows } from '../../server/rows/engine.ts';
import { stringForm } from '../../server/rows/match.ts';
import type { Filter, ListQuery } from '../../server/rows/query.ts';
import { BLOCK_CHARS, buildTrigramBlocks, candidateRanges } from '../../server/rows/trigram-blocks.ts';
import type { CellValue } from '../../server/sources/source.ts';

/** Characters that exercise folding (case, accents, ß), the joined text's separator (NUL) and digits. */
const CHARS = ['a', 'B', 'é', 'E', 'ß', 's', '\u0000', '1', '0', '.', ' ', 'Ø'];
const text = (maxLength: number) => fc.string({ unit: fc.constantFrom(...CHARS), maxLength });
const cellValue: fc.Arbitrary<CellValue> = fc.oneof(
  { weight: 4, arbitrary: text(6) },
  { weight: 1, arbitrary: fc.constantFrom('Zoë', 'ZOE', 'Straße', 'strasse', 'a\u0000b', '') },
  { weight: 2, arbitrary: fc.integer({ min: -20, max: 120 }) },
  { weight: 1, arbitrary: fc.constantFrom(0.5, 1e21, -0) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);

const HEADER = ['a', 'b'];

function query(
  filters: Filter[],
  sort: boolean,
  offset: number,
  limit: number,
  formatted: boolean,
): ListQuery {
  return {
    filters,
    where: null,
    sort: sort ? [{ field: 'b', descending: true }] : [],
    fields: null,
    limit,
    offset,
    values: formatted ? 'formatted' : 'typed',
    format: 'json',
    callback: null,
    meta: false,
  };
}

/** The cell a filter sees, by the documented rule: the typed value, or the displayed text (null if empty). */
function seen(tab: TabRows, row: number, col: number, formatted: boolean): CellValue {
  const t = tab.typed[row]![col] ?? null;
  if (!formatted) return t;
  const f = tab.formatted[row]![col]!;
  return t === null && f === '' ? null : f;
}

function passes(tab: TabRows, row: number, f: Filter, formatted: boolean): boolean {
  const s = stringForm(seen(tab, row, HEADER.indexOf(f.field), formatted));
  return f.exact ? s === f.value : foldText(s).includes(foldText(f.value));
}

/** Row numbers (1-based) the query should return: every row in the sort's order, filtered by the plain rule. */
function expected(tab: TabRows, q: ListQuery): { total: number; rows: number[] } {
  const all = runQuery(tab, { ...q, filters: [], offset: 0, limit: tab.typed.length + 1 });
  const kept = all.rows
    .map((r) => r.index)
    .filter((index) => q.filters.every((f) => passes(tab, index - 1, f, q.values === 'formatted')));
  return { total: kept.length, rows: kept.slice(q.offset, q.offset + q.limit) };
}

function tabOf(rows: [CellValue, CellValue][]): TabRows {
  return {
    header: HEADER,
    typed: rows,
    // Displayed text that differs from the typed value's string form, as a number format would.
    formatted: rows.map((r) => r.map((v) => (v === null ? '' : typeof v === 'number' ? `#${v}` : String(v)))),
  };
}

const filter = (values: fc.Arbitrary<string>): fc.Arbitrary<Filter> =>
  fc.record({ field: fc.constantFrom('a', 'b'), value: values, exact: fc.boolean() });

describe('search and search_exact through the column index', () => {
  it('return exactly the rows the plain rule keeps, in order, paged', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cellValue, cellValue), { maxLength: 60 }),
        fc.array(filter(fc.oneof(text(3), fc.constantFrom('1', '0.5', 'true', 'zoe', 'STRASSE', '#1'))), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.boolean(),
        fc.boolean(),
        fc.nat(10),
        fc.integer({ min: 1, max: 30 }),
        (rows, filters, sort, formatted, offset, limit) => {
          const tab = tabOf(rows);
          const q = query(filters, sort, offset, limit, formatted);
          const result = runQuery(tab, q);
          expect({ total: result.total, rows: result.rows.map((r) => r.index) }).toEqual(expected(tab, q));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('hold when a column folds to itself and one index serves both kinds, in either order', () => {
    // Lower-case text and numbers fold to themselves (column a): its exact index is the folded one too. Column b
    // has capitals and accents: two indexes. Each search is asked alone, in turn, of the same snapshot.
    const plain = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', 's', '1', '.', ' '), maxLength: 4 }),
      fc.integer({ min: 0, max: 30 }),
    );
    const tabAndFilters = fc
      .array(fc.tuple(plain, cellValue), { minLength: 1, maxLength: 40 })
      .chain((rows) => {
        const present = rows.flatMap((r) => r.map(stringForm));
        const value = fc.oneof(fc.constantFrom(...present), text(3), fc.constantFrom('S', 'ss', 'ß', 'zoe'));
        return fc.tuple(fc.constant(rows), fc.array(filter(value), { minLength: 2, maxLength: 6 }));
      });
    fc.assert(
      fc.property(tabAndFilters, ([rows, filters]) => {
        const tab = tabOf(rows);
        for (const f of filters) {
          const q = query([f], false, 0, 50, false);
          const result = runQuery(tab, q);
          expect({ total: result.total, rows: result.rows.map((r) => r.index) }).toEqual(expected(tab, q));
        }
      }),
      { numRuns: 400 },
    );
  });

  it('hold over long columns too, where the trigram filter picks what is scanned', () => {
    const words = ['alpha', 'Bèta', 'gamma', 'DELTA', 'straße', 'x1', '42', 'zoë'];
    const longValue = fc
      .array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 })
      .map((w) => w.join(' '));
    fc.assert(
      fc.property(
        // ~3,000 rows of ~25 characters: over the length below which a column's text is scanned whole.
        fc.array(fc.tuple(longValue, fc.oneof(longValue, fc.integer())), {
          minLength: 3000,
          maxLength: 3200,
        }),
        fc.array(filter(fc.oneof(fc.constantFrom(...words), longValue, text(4))), {
          minLength: 1,
          maxLength: 2,
        }),
        fc.nat(200),
        (rows, filters, pick) => {
          // Also a whole value taken from the column, so exact matches find something.
          const picked = rows[pick % rows.length]![0] as string;
          const all = [...filters, { field: 'a', value: picked, exact: pick % 2 === 0 }];
          const tab = tabOf(rows);
          for (const f of [filters, all]) {
            const q = query(f, false, 0, 50, false);
            const result = runQuery(tab, q);
            expect({ total: result.total, rows: result.rows.map((r) => r.index) }).toEqual(expected(tab, q));
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('a few hits, sorted by themselves', () => {
  it('come in the order the whole tab sorts them in', () => {
    // Hundreds of rows, a filter keeping a handful: the hits are sorted alone, not found along the tab's order.
    const sortable: fc.Arbitrary<CellValue> = fc.oneof(
      fc.constantFrom('Zoë', 'zoe', 'item2', 'item10', 'Straße', '', 'b'),
      fc.integer({ min: -3, max: 3 }),
      fc.boolean(),
      fc.constant(null),
    );
    const tabAndKeys = fc.tuple(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 999 }), sortable), { minLength: 2600, maxLength: 2800 }),
      fc.nat(999),
      fc.array(fc.record({ field: fc.constantFrom('a', 'b'), descending: fc.boolean() }), {
        minLength: 1,
        maxLength: 2,
      }),
      fc.nat(3),
      fc.boolean(),
    );
    fc.assert(
      fc.property(tabAndKeys, ([rows, wanted, sort, offset, exact]) => {
        const tab = tabOf(rows);
        // Column a holds numbers below 1,000: an exact search keeps a few rows (a substring one often many).
        const filters = [{ field: 'a', value: String(wanted), exact }];
        const q = { ...query(filters, false, offset, 3, false), sort };
        const all = runQuery(tab, { ...q, filters: [], offset: 0, limit: rows.length });
        const kept = all.rows.map((r) => r.index).filter((i) => passes(tab, i - 1, filters[0]!, false));
        const result = runQuery(tab, q);
        expect({ total: result.total, rows: result.rows.map((r) => r.index) }).toEqual({
          total: kept.length,
          rows: kept.slice(offset, offset + 3),
        });
      }),
      { numRuns: 150 },
    );
  });
});

describe('the trigram filter', () => {
  it('offers every place the needle occurs', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('a', 'b', 'c', 'é', '\u0000'),
          minLength: 70_000,
          maxLength: 72_000,
        }),
        fc.nat(),
        fc.integer({ min: 1, max: 40 }),
        (haystack, at, length) => {
          const start = at % haystack.length;
          const needle = haystack.slice(start, start + length);
          const ranges: [number, number][] = [];
          candidateRanges(buildTrigramBlocks(haystack), haystack.length, needle, (s, e) =>
            ranges.push([s, e]),
          );
          for (let p = haystack.indexOf(needle); p >= 0; p = haystack.indexOf(needle, p + 1)) {
            expect(ranges.some(([s, e]) => s <= p && p < e)).toBe(true);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('leaves out the blocks that cannot hold the needle, and keeps one it begins in at any offset', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.nat(12), (block, back) => {
        // A needle of letters found nowhere else, beginning just before a block's end (or anywhere in it).
        const at = block * BLOCK_CHARS - back;
        const background = 'abc'.repeat(40_000);
        const haystack = `${background.slice(0, at)}QRSTUVWXYZ${background.slice(at)}`;
        const ranges: [number, number][] = [];
        candidateRanges(buildTrigramBlocks(haystack), haystack.length, 'QRSTUVWXYZ', (s, e) =>
          ranges.push([s, e]),
        );
        expect(ranges.some(([s, e]) => s <= at && at < e)).toBe(true);
        expect(ranges.reduce((sum, [s, e]) => sum + e - s, 0)).toBeLessThanOrEqual(2 * BLOCK_CHARS);
      }),
      { numRuns: 60 },
    );
  });
});
