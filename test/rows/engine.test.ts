import { describe, expect, it } from 'vitest';
import { projectRow, runQuery, type TabRows } from '../../server/rows/engine.ts';
import { renderList } from '../../server/rows/formats/index.ts';
import type { ListQuery } from '../../server/rows/query.ts';
import { parseListQuery } from '../../server/rows/query-params.ts';
import type { CellValue } from '../../server/sources/source.ts';
import { caught } from '../helpers/caught.ts';

const OPTS = { defaultLimit: 100, maxLimit: 1000 };

function fmt(v: CellValue): string {
  return v === null ? '' : String(v);
}

/** A tab whose formatted text is String(typed) unless given. */
function tab(header: string[], typed: CellValue[][], formatted?: string[][]): TabRows {
  return { header, typed, formatted: formatted ?? typed.map((r) => r.map(fmt)) };
}

function q(query: Record<string, unknown>): ListQuery {
  return parseListQuery(query, OPTS);
}

function indices(t: TabRows, query: Record<string, unknown>): number[] {
  return runQuery(t, q(query)).rows.map((r) => r.index);
}

const people = tab(
  ['name', 'qty', 'active', 'note', 'code'],
  [
    ['Ann', 10, true, 'likes Tea', 'item10'],
    ['bob', 2, false, null, 'item2'],
    ['Cara', 10, null, 'tea, coffee', 'Item1'],
    ['dave', null, true, '', 'item2'],
    ['Eve', 'n/a', false, 'x:y', null],
  ],
);

describe('runQuery without params', () => {
  it('returns every row in sheet order with 1-based indices and all fields', () => {
    const r = runQuery(people, q({}));
    expect(r.total).toBe(5);
    expect(r.fields).toEqual(['name', 'qty', 'active', 'note', 'code']);
    expect(r.rows.map((x) => x.index)).toEqual([1, 2, 3, 4, 5]);
    expect(r.rows[0]!.values).toEqual(['Ann', 10, true, 'likes Tea', 'item10']);
    expect(r.rows[1]!.values).toEqual(['bob', 2, false, null, 'item2']);
  });

  it('handles an empty tab', () => {
    const empty = tab(['a'], []);
    expect(runQuery(empty, q({ search: 'a:x', sort: 'a' }))).toMatchObject({
      total: 0,
      fields: ['a'],
      rows: [],
    });
    expect(runQuery(empty, q({ search_exact: 'a:' })).total).toBe(0);
  });
});

describe('search (case-insensitive substring)', () => {
  it('matches case-insensitively', () => {
    expect(indices(people, { search: 'name:A' })).toEqual([1, 3, 4]);
    expect(indices(people, { search: 'note:TEA' })).toEqual([1, 3]);
  });

  it('matches numbers and booleans by their string form', () => {
    expect(indices(people, { search: 'qty:10' })).toEqual([1, 3]);
    expect(indices(people, { search: 'qty:1' })).toEqual([1, 3]);
    expect(indices(people, { search: 'active:TRUE' })).toEqual([1, 4]);
    expect(indices(people, { search: 'active:fal' })).toEqual([2, 5]);
  });

  it('ANDs several pairs', () => {
    expect(indices(people, { search: 'name:a,note:tea' })).toEqual([1, 3]);
    expect(indices(people, { search: 'name:a,note:coffee' })).toEqual([3]);
  });

  it('an empty value matches every row', () => {
    expect(indices(people, { search: 'note:' })).toEqual([1, 2, 3, 4, 5]);
  });

  it('matches values containing escaped commas and colons', () => {
    expect(indices(people, { search: 'note:a\\, c' })).toEqual([3]);
    expect(indices(people, { search: 'note:x\\:y' })).toEqual([5]);
    expect(indices(people, { search: 'note:x:y' })).toEqual([5]);
  });

  it('finds nothing when nothing matches', () => {
    const r = runQuery(people, q({ search: 'name:zzz' }));
    expect(r.total).toBe(0);
    expect(r.rows).toEqual([]);
  });
});

describe('search_exact', () => {
  it('is an exact, case-sensitive match of the string form', () => {
    expect(indices(people, { search_exact: 'name:ann' })).toEqual([]);
    expect(indices(people, { search_exact: 'name:Ann' })).toEqual([1]);
    expect(indices(people, { search_exact: 'name:An' })).toEqual([]);
    expect(indices(people, { search_exact: 'qty:10' })).toEqual([1, 3]);
    expect(indices(people, { search_exact: 'active:false' })).toEqual([2, 5]);
    expect(indices(people, { search_exact: 'code:item2' })).toEqual([2, 4]);
  });

  it('field: with an empty value matches empty cells (null and "")', () => {
    expect(indices(people, { search_exact: 'note:' })).toEqual([2, 4]);
    expect(indices(people, { search_exact: 'active:' })).toEqual([3]);
  });

  it('is ANDed with search', () => {
    expect(indices(people, { search: 'name:a', search_exact: 'qty:10' })).toEqual([1, 3]);
    expect(indices(people, { search: 'name:a', search_exact: 'active:true' })).toEqual([1, 4]);
    expect(indices(people, { search: 'name:e', search_exact: 'active:true' })).toEqual([4]);
  });
});

describe('search over values that contain the internal separator (NUL)', () => {
  const t = tab(['v'], [['a\u0000b'], ['b'], ['x\u0000'], ['']]);
  it('exact matches only whole values', () => {
    expect(indices(t, { search_exact: 'v:b' })).toEqual([2]);
    expect(indices(t, { search_exact: 'v:a' })).toEqual([]);
    expect(indices(t, { search_exact: 'v:' })).toEqual([4]);
    expect(indices(t, { search_exact: 'v:a\u0000b' })).toEqual([1]);
  });
  it('substring works, also for needles containing NUL', () => {
    expect(indices(t, { search: 'v:B' })).toEqual([1, 2]);
    expect(indices(t, { search: 'v:\u0000' })).toEqual([1, 3]);
  });
});

describe('sort', () => {
  const mixed = tab(
    ['v', 'k'],
    [
      ['item10', 1],
      [3, 2],
      [null, 3],
      ['item2', 4],
      [true, 5],
      ['Apple', 6],
      [false, 7],
      [1.5, 8],
      ['apple', 9],
      [null, 10],
      ['B', 11],
      [-2, 12],
    ],
  );

  it('ascending: numbers < text (numeric, case-insensitive) < false < true < empty', () => {
    const r = runQuery(mixed, q({ sort: 'v', fields: 'v' }));
    expect(r.rows.map((x) => x.values[0])).toEqual([
      -2,
      1.5,
      3,
      'Apple',
      'apple',
      'B',
      'item2',
      'item10',
      false,
      true,
      null,
      null,
    ]);
    // Ties (Apple/apple under base sensitivity, the two nulls) keep sheet order.
    expect(r.rows.map((x) => x.index)).toEqual([12, 8, 2, 6, 9, 11, 4, 1, 7, 5, 3, 10]);
  });

  it('descending reverses values but keeps empties last and ties in sheet order', () => {
    const r = runQuery(mixed, q({ sort: '-v', fields: 'v' }));
    expect(r.rows.map((x) => x.values[0])).toEqual([
      true,
      false,
      'item10',
      'item2',
      'B',
      'Apple',
      'apple',
      3,
      1.5,
      -2,
      null,
      null,
    ]);
    expect(r.rows.map((x) => x.index)).toEqual([5, 7, 1, 4, 11, 6, 9, 2, 8, 12, 3, 10]);
  });

  it('uses numeric collation for text (item2 < item10)', () => {
    const t = tab(['c'], [['item10'], ['item2'], ['Item1'], ['item20'], ['item3']]);
    expect(runQuery(t, q({ sort: 'c' })).rows.map((x) => x.values[0])).toEqual([
      'Item1',
      'item2',
      'item3',
      'item10',
      'item20',
    ]);
  });

  it('is stable: equal keys keep sheet order in both directions', () => {
    const t = tab(
      ['g', 'id'],
      [
        ['b', 1],
        ['a', 2],
        ['b', 3],
        ['a', 4],
        ['B', 5],
        ['A', 6],
      ],
    );
    expect(indices(t, { sort: 'g' })).toEqual([2, 4, 6, 1, 3, 5]);
    expect(indices(t, { sort: '-g' })).toEqual([1, 3, 5, 2, 4, 6]);
  });

  it('applies multiple keys in order', () => {
    const t = tab(
      ['city', 'age', 'name'],
      [
        ['Oslo', 30, 'a'],
        ['Bergen', 25, 'b'],
        ['Oslo', 40, 'c'],
        ['Bergen', 35, 'd'],
        ['Oslo', 30, 'e'],
        [null, 50, 'f'],
      ],
    );
    expect(runQuery(t, q({ sort: 'city,-age', fields: 'name' })).rows.map((x) => x.values[0])).toEqual([
      'd',
      'b',
      'c',
      'a',
      'e',
      'f',
    ]);
    expect(runQuery(t, q({ sort: '-age,name', fields: 'name' })).rows.map((x) => x.values[0])).toEqual([
      'f',
      'c',
      'd',
      'a',
      'e',
      'b',
    ]);
  });

  it('sorts booleans false < true', () => {
    expect(indices(people, { sort: 'active' })).toEqual([2, 5, 1, 4, 3]);
    expect(indices(people, { sort: '-active' })).toEqual([1, 4, 2, 5, 3]);
  });

  it('repeated and differently-spelled sorts give the same (cached) result', () => {
    const a = indices(people, { sort: 'code' });
    expect(indices(people, { sort: 'code' })).toEqual(a);
    expect(indices(people, { sort: 'code,code' })).toEqual(a);
    expect(a).toEqual([3, 2, 4, 1, 5]);
  });

  it('a new snapshot is sorted afresh (caches are per snapshot array)', () => {
    const t1 = tab(['n'], [[3], [1], [2]]);
    expect(indices(t1, { sort: 'n' })).toEqual([2, 3, 1]);
    const t2 = tab(['n'], [[1], [3], [2]]);
    expect(indices(t2, { sort: 'n' })).toEqual([1, 3, 2]);
  });
});

describe('formatted mode', () => {
  const money = tab(
    ['item', 'amount', 'when', 'memo'],
    [
      ['pen', 1000, '2024-03-01', 'x'],
      ['ink', 20, '2024-01-15', ''],
      ['cap', 3.5, null, null],
      ['box', null, '2024-02-10', 'y'],
    ],
    [
      ['pen', '$1,000.00', '3/1/2024', 'x'],
      ['ink', '$20.00', '1/15/2024', ''],
      ['cap', '$3.50', '', ''],
      ['box', '', '2/10/2024', 'y'],
    ],
  );

  it('returns displayed strings, null for empty cells, "" for a cell that displays ""', () => {
    const r = runQuery(money, q({ values: 'formatted' }));
    expect(r.rows.map((x) => x.values)).toEqual([
      ['pen', '$1,000.00', '3/1/2024', 'x'],
      ['ink', '$20.00', '1/15/2024', ''],
      ['cap', '$3.50', null, null],
      ['box', null, '2/10/2024', 'y'],
    ]);
  });

  it('searches the formatted text', () => {
    expect(indices(money, { values: 'formatted', search: 'amount:1\\,0' })).toEqual([1]);
    expect(indices(money, { values: 'formatted', search: 'amount:1000' })).toEqual([]);
    expect(indices(money, { search: 'amount:1000' })).toEqual([1]);
    expect(indices(money, { values: 'formatted', search_exact: 'amount:$20.00' })).toEqual([2]);
    expect(indices(money, { values: 'formatted', search_exact: 'when:' })).toEqual([3]);
    expect(indices(money, { values: 'formatted', search: 'when:/2024' })).toEqual([1, 2, 4]);
  });

  it('sorts by the typed values, with empty displayed text last', () => {
    // As text "$1,000.00" < "$20.00" < "$3.50"; as numbers 3.5 < 20 < 1000.
    expect(indices(money, { values: 'formatted', sort: 'amount' })).toEqual([3, 2, 1, 4]);
    expect(indices(money, { values: 'formatted', sort: '-amount' })).toEqual([1, 2, 3, 4]);
    expect(indices(money, { values: 'formatted', sort: 'when' })).toEqual([2, 4, 1, 3]);
    // memo: typed '' is text (sorts first among text) in typed mode, but empty (last) in formatted mode.
    expect(indices(money, { sort: 'memo' })).toEqual([2, 1, 4, 3]);
    expect(indices(money, { values: 'formatted', sort: 'memo' })).toEqual([1, 4, 2, 3]);
    expect(indices(money, { values: 'formatted', sort: '-memo' })).toEqual([4, 1, 2, 3]);
  });
});

describe('paging', () => {
  const many = tab(
    ['n', 'parity'],
    Array.from({ length: 30 }, (_, i) => [i + 1, i % 2 === 0 ? 'odd' : 'even']),
  );

  it('applies offset and limit after filter and sort, reporting the total before paging', () => {
    const r = runQuery(many, q({ search_exact: 'parity:odd', sort: '-n', offset: '2', limit: '3' }));
    expect(r.total).toBe(15);
    expect(r.rows.map((x) => x.values[0])).toEqual([25, 23, 21]);
  });

  it('slices directly without filter or sort', () => {
    const r = runQuery(many, q({ offset: '10', limit: '5' }));
    expect(r.total).toBe(30);
    expect(r.rows.map((x) => x.index)).toEqual([11, 12, 13, 14, 15]);
  });

  it('limit=0 returns no rows but the total', () => {
    expect(runQuery(many, q({ limit: '0' }))).toMatchObject({ total: 30, fields: ['n', 'parity'], rows: [] });
    expect(runQuery(many, q({ limit: '0', search: 'parity:even' })).total).toBe(15);
  });

  it('offset beyond the end returns no rows but the total', () => {
    expect(runQuery(many, q({ offset: '30' })).rows).toEqual([]);
    expect(runQuery(many, q({ offset: '1000', sort: 'n' })).total).toBe(30);
    const r = runQuery(many, q({ offset: String(Number.MAX_SAFE_INTEGER), search: 'parity:odd', sort: 'n' }));
    expect(r).toMatchObject({ total: 15, rows: [] });
  });

  it('a clamped limit returns at most the maximum', () => {
    const big = tab(
      ['n'],
      Array.from({ length: 700 }, (_, i) => [i]),
    );
    const query = parseListQuery({ limit: '5000' }, { defaultLimit: 100, maxLimit: 500 });
    expect(query.limit).toBe(500);
    expect(runQuery(big, query).rows).toHaveLength(500);
    expect(runQuery(big, q({})).rows).toHaveLength(100);
  });
});

describe('projection', () => {
  it('returns the requested fields in the order given, without duplicates', () => {
    const r = runQuery(people, q({ fields: 'note,name,note' }));
    expect(r.fields).toEqual(['note', 'name']);
    expect(r.rows[0]!.values).toEqual(['likes Tea', 'Ann']);
  });

  it('can filter and sort on fields that are not returned', () => {
    const r = runQuery(people, q({ fields: 'name', search_exact: 'qty:10', sort: '-name' }));
    expect(r.rows.map((x) => x.values)).toEqual([['Cara'], ['Ann']]);
  });
});

describe('unknown_field', () => {
  it.each([
    ['search', { search: 'nope:x' }, 'nope'],
    ['search_exact', { search_exact: 'nope:x' }, 'nope'],
    ['sort', { sort: '-nope' }, 'nope'],
    ['fields', { fields: 'name,nope' }, 'nope'],
    ['case-sensitive names', { fields: 'Name' }, 'Name'],
    ['the empty name', { search: ':x' }, ''],
  ])('rejects an unknown field in %s', (_label, query, field) => {
    const e = caught(() => runQuery(people, q(query)));
    expect(e.code).toBe('unknown_field');
    expect(e.status).toBe(400);
    expect(e.details).toEqual({ field });
    expect(e.message).toContain(`"${field}"`);
  });
});

describe('odd header names', () => {
  const header = [
    'first name',
    'ünï 名前',
    '__proto__',
    '',
    '1abc',
    '<&>',
    'a,b',
    'a:b',
    'constructor',
    'a\\b',
  ];
  const odd = tab(header, [
    ['Ann', 'x', 'p1', 'e1', 'd1', 'lt', 'comma1', 'colon1', 'c1', 'bs1'],
    ['Bob', 'y', 'p2', 'e2', 'd2', 'gt', 'comma2', 'colon2', 'c2', 'bs2'],
  ]);

  it('projects any name', () => {
    const r = runQuery(odd, q({ fields: '__proto__,,constructor,a\\,b,a:b,<&>,1abc,ünï 名前,first name' }));
    expect(r.fields).toEqual([
      '__proto__',
      '',
      'constructor',
      'a,b',
      'a:b',
      '<&>',
      '1abc',
      'ünï 名前',
      'first name',
    ]);
    expect(r.rows[1]!.values).toEqual(['p2', 'e2', 'c2', 'comma2', 'colon2', 'gt', 'd2', 'y', 'Bob']);
  });

  it('searches and sorts by any name', () => {
    expect(indices(odd, { search: 'a\\,b:2' })).toEqual([2]);
    expect(indices(odd, { search: 'a\\:b:1' })).toEqual([1]);
    expect(indices(odd, { search_exact: ':e2' })).toEqual([2]);
    expect(indices(odd, { search: '__proto__:p' })).toEqual([1, 2]);
    expect(indices(odd, { search: 'a\\b:bs2' })).toEqual([2]);
    expect(indices(odd, { sort: '-first name' })).toEqual([2, 1]);
    expect(indices(odd, { sort: '-<&>' })).toEqual([1, 2]);
  });

  it('does not confuse names with Object.prototype members', () => {
    expect(caught(() => runQuery(odd, q({ fields: 'toString' }))).code).toBe('unknown_field');
    expect(caught(() => runQuery(odd, q({ sort: 'hasOwnProperty' }))).code).toBe('unknown_field');
  });
});

describe('projectRow', () => {
  it('returns one row projected', () => {
    expect(projectRow(people, 3, ['note', 'name'], 'typed')).toEqual({
      fields: ['note', 'name'],
      values: ['tea, coffee', 'Cara'],
    });
    expect(projectRow(people, 2, null, 'typed')).toEqual({
      fields: ['name', 'qty', 'active', 'note', 'code'],
      values: ['bob', 2, false, null, 'item2'],
    });
  });

  it('formatted mode gives displayed strings and null for empty cells', () => {
    const t = tab(['a', 'b'], [[1000, null]], [['1,000', '']]);
    expect(projectRow(t, 1, null, 'formatted').values).toEqual(['1,000', null]);
  });

  it('validates fields (unknown_field) and the row number (row_not_found)', () => {
    expect(caught(() => projectRow(people, 1, ['zzz'], 'typed')).details).toEqual({ field: 'zzz' });
    for (const n of [0, 6, -1, 1.5])
      expect(caught(() => projectRow(people, n, null, 'typed')).code).toBe('row_not_found');
  });
});

describe('agrees with a naive reference implementation on random data', () => {
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  const cls = (v: CellValue): number =>
    v === null ? 3 : typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : 2;
  const cmp = (a: CellValue, b: CellValue): number => {
    const ca = cls(a);
    const cb = cls(b);
    if (ca !== cb) return ca - cb;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (typeof a === 'string' && typeof b === 'string') return collator.compare(a, b);
    if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
    return 0;
  };
  const str = (v: CellValue): string => (v === null ? '' : String(v));

  let seed = 7;
  const rnd = (k: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % k;
  };
  const pool: CellValue[] = [
    null,
    true,
    false,
    0,
    1,
    2.5,
    -3,
    10,
    'a',
    'A',
    'b',
    'item2',
    'item10',
    'Zed',
    'ab',
    '',
  ];
  const rows: CellValue[][] = Array.from({ length: 400 }, () => [0, 1, 2].map(() => pool[rnd(pool.length)]!));
  const t = tab(['x', 'y', 'z'], rows);

  const cases: Record<string, string>[] = [
    { sort: 'x' },
    { sort: '-x,y' },
    { sort: 'y,-z,x' },
    { search: 'x:a', sort: '-y' },
    { search: 'x:1,y:e', sort: 'z' },
    { search_exact: 'z:', sort: 'x', offset: '3', limit: '7' },
    { search_exact: 'y:item2', search: 'z:A' },
    { search: 'x:tr', sort: '-z,-x', offset: '5' },
  ];

  it.each(cases)('%j', (query) => {
    const parsed = q(query);
    let expected = rows.map((values, i) => ({ index: i + 1, values }));
    for (const f of parsed.filters) {
      const c = ['x', 'y', 'z'].indexOf(f.field);
      expected = expected.filter((r) =>
        f.exact
          ? str(r.values[c]!) === f.value
          : str(r.values[c]!).toLowerCase().includes(f.value.toLowerCase()),
      );
    }
    expected.sort((a, b) => {
      for (const k of parsed.sort) {
        const c = ['x', 'y', 'z'].indexOf(k.field);
        const va = a.values[c]!;
        const vb = b.values[c]!;
        if ((va === null) !== (vb === null)) return va === null ? 1 : -1;
        const d = cmp(va, vb);
        if (d !== 0) return k.descending ? -d : d;
      }
      return a.index - b.index;
    });
    const r = runQuery(t, parsed);
    expect(r.total).toBe(expected.length);
    expect(r.rows).toEqual(expected.slice(parsed.offset, parsed.offset + parsed.limit));
  });
});

describe('caches', () => {
  it('serve repeated filtered queries identically and never across snapshots', () => {
    const rows = Array.from({ length: 50 }, (_, i) => [`name${i}`, i % 3]);
    const first = tab(['name', 'group'], rows);
    const a = runQuery(first, q({ search_exact: 'group:1', sort: '-name', limit: '5' }));
    const b = runQuery(first, q({ search_exact: 'group:1', sort: '-name', limit: '5' }));
    expect(b).toEqual(a);
    expect(a.total).toBe(17);
    // A new snapshot (as after a write) with one more matching row must not reuse the old result.
    const second = tab(['name', 'group'], [...rows, ['zz', 1]]);
    const c = runQuery(second, q({ search_exact: 'group:1', sort: '-name', limit: '5' }));
    expect(c.total).toBe(18);
    expect(c.rows[0]!.values[0]).toBe('zz');
  });

  it('render whole rows from the per-snapshot JSON cache exactly as without it', () => {
    const t = tab(
      ['a', '__proto__'],
      [
        [1, 'x'],
        [2, null],
      ],
    );
    const result = runQuery(t, q({}));
    expect(result.wholeRowsOf).toBe(t.typed);
    const once = renderList(result, { format: 'json', callback: null, meta: false, limit: 100, offset: 0 });
    const twice = renderList(runQuery(t, q({})), {
      format: 'json',
      callback: null,
      meta: false,
      limit: 100,
      offset: 0,
    });
    expect(twice.body.toString()).toBe(once.body.toString());
    expect(once.body.toString()).toBe('[{"a":1,"__proto__":"x"},{"a":2,"__proto__":null}]');
    expect(runQuery(t, q({ fields: 'a' })).wholeRowsOf).toBeUndefined();
  });
});

describe('page cache', () => {
  it('gives the same page for the same query on the same snapshot, and a fresh one on a new snapshot', async () => {
    const { renderPage } = await import('../../server/rows/page-cache.ts');
    const first = tab(['n'], [[1], [2], [3]]);
    const a = await renderPage(first, q({ sort: '-n', limit: '2' }));
    const b = await renderPage(first, q({ sort: '-n', limit: '2' }));
    expect(b).toBe(a);
    expect(a.total).toBe(3);
    expect(a.rendered.body.toString()).toBe('[{"n":3},{"n":2}]');
    const second = tab(['n'], [[1], [2], [3], [4]]);
    const c = await renderPage(second, q({ sort: '-n', limit: '2' }));
    expect(c.rendered.body.toString()).toBe('[{"n":4},{"n":3}]');
    expect((await renderPage(first, q({ sort: 'n', limit: '2' }))).rendered.body.toString()).toBe(
      '[{"n":1},{"n":2}]',
    );
  });
});
