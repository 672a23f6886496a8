import { describe, expect, it } from 'vitest';
import { parseListQuery, parseRowViewQuery } from '../../server/rows/query-params.ts';
import { caught } from '../helpers/caught.ts';

const API = { defaultLimit: 100, maxLimit: 1000 };
const V1 = { defaultLimit: 100, maxLimit: 500 };

function invalidParam(query: Record<string, unknown>, parameter: string): void {
  const e = caught(() => parseListQuery(query, API));
  expect(e.code).toBe('invalid_parameter');
  expect(e.status).toBe(400);
  expect(e.details).toMatchObject({ parameter });
}

describe('parseListQuery defaults', () => {
  it('returns the documented defaults for an empty query', () => {
    expect(parseListQuery({}, API)).toEqual({
      filters: [],
      where: null,
      sort: [],
      fields: null,
      limit: 100,
      offset: 0,
      values: 'typed',
      format: 'json',
      callback: null,
      meta: false,
    });
  });

  it('uses the configured default limit', () => {
    expect(parseListQuery({}, { defaultLimit: 25, maxLimit: 500 }).limit).toBe(25);
  });

  it('ignores unknown params such as jQuery cache busters', () => {
    expect(parseListQuery({ _: '1712345678', foo: ['a', 'b'] }, API).limit).toBe(100);
  });

  it('treats explicitly undefined values as absent', () => {
    expect(parseListQuery({ limit: undefined, format: undefined }, API)).toMatchObject({
      limit: 100,
      format: 'json',
    });
  });
});

describe('limit and offset', () => {
  it('accepts integers', () => {
    const q = parseListQuery({ limit: '10', offset: '20' }, API);
    expect(q.limit).toBe(10);
    expect(q.offset).toBe(20);
  });

  it('accepts limit=0', () => {
    expect(parseListQuery({ limit: '0' }, API).limit).toBe(0);
  });

  it('clamps a larger limit to the maximum and reports the applied value', () => {
    expect(parseListQuery({ limit: '5000' }, API).limit).toBe(1000);
    expect(parseListQuery({ limit: '501' }, V1).limit).toBe(500);
    expect(parseListQuery({ limit: '500' }, V1).limit).toBe(500);
    expect(parseListQuery({ limit: '99999999999999999999999' }, V1).limit).toBe(500);
  });

  it('has no maximum offset', () => {
    expect(parseListQuery({ offset: '123456789' }, API).offset).toBe(123456789);
    expect(parseListQuery({ offset: '9'.repeat(40) }, API).offset).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each(['-1', '1.5', 'abc', '', ' 5', '+5', '1e3', '0x10'])('rejects limit=%j', (v) => {
    invalidParam({ limit: v }, 'limit');
  });

  it.each(['-1', '1.5', 'abc', ''])('rejects offset=%j', (v) => {
    invalidParam({ offset: v }, 'offset');
  });
});

describe('repeated and non-string params', () => {
  it.each([
    'limit',
    'offset',
    'search',
    'search_exact',
    'sort',
    'fields',
    'format',
    'callback',
    'meta',
    'values',
  ])('rejects %s given twice', (name) => {
    const base: Record<string, unknown> = name === 'callback' ? { format: 'jsonp' } : {};
    const e = caught(() => parseListQuery({ ...base, [name]: ['1', '2'] }, API));
    expect(e.code).toBe('invalid_parameter');
    expect(e.details).toEqual({ parameter: name });
  });

  it('rejects object values from an extended query parser', () => {
    invalidParam({ search: { a: 'b' } }, 'search');
  });
});

describe('search and search_exact', () => {
  it('parses field:value pairs joined by commas', () => {
    expect(parseListQuery({ search: 'name:ann,city:oslo' }, API).filters).toEqual([
      { field: 'name', value: 'ann', exact: false },
      { field: 'city', value: 'oslo', exact: false },
    ]);
  });

  it('combines search and search_exact', () => {
    expect(parseListQuery({ search: 'a:1', search_exact: 'b:2' }, API).filters).toEqual([
      { field: 'a', value: '1', exact: false },
      { field: 'b', value: '2', exact: true },
    ]);
  });

  it('splits on the first unescaped colon only', () => {
    expect(parseListQuery({ search: 'time:10:30' }, API).filters).toEqual([
      { field: 'time', value: '10:30', exact: false },
    ]);
  });

  it('honours \\, \\: and \\\\ escapes', () => {
    expect(parseListQuery({ search_exact: 'a\\:b:x\\,y,c\\\\:d\\\\' }, API).filters).toEqual([
      { field: 'a:b', value: 'x,y', exact: true },
      { field: 'c\\', value: 'd\\', exact: true },
    ]);
  });

  it('keeps a backslash before any other character', () => {
    expect(parseListQuery({ search: 'path:C\\dir' }, API).filters).toEqual([
      { field: 'path', value: 'C\\dir', exact: false },
    ]);
  });

  it('allows an empty value (field:) and an empty field name (:x)', () => {
    expect(parseListQuery({ search_exact: 'note:,:x' }, API).filters).toEqual([
      { field: 'note', value: '', exact: true },
      { field: '', value: 'x', exact: true },
    ]);
  });

  it('treats an empty parameter as no filter', () => {
    expect(parseListQuery({ search: '' }, API).filters).toEqual([]);
  });

  it.each(['name', 'a:1,b', 'a\\:b', 'a:1,'])('rejects search=%j (pair without colon)', (v) => {
    invalidParam({ search: v }, 'search');
    invalidParam({ search_exact: v }, 'search_exact');
  });
});

describe('sort', () => {
  it('parses keys with - for descending', () => {
    expect(parseListQuery({ sort: 'city,-age' }, API).sort).toEqual([
      { field: 'city', descending: false },
      { field: 'age', descending: true },
    ]);
  });

  it('drops repeated keys (the first one decides)', () => {
    expect(parseListQuery({ sort: 'a,-a,b' }, API).sort).toEqual([
      { field: 'a', descending: false },
      { field: 'b', descending: false },
    ]);
  });

  it('allows escapes, including \\- for a name that starts with a dash', () => {
    expect(parseListQuery({ sort: 'a\\,b,\\-x,--y' }, API).sort).toEqual([
      { field: 'a,b', descending: false },
      { field: '-x', descending: false },
      { field: '-y', descending: true },
    ]);
  });

  it('treats an empty parameter as no sort', () => {
    expect(parseListQuery({ sort: '' }, API).sort).toEqual([]);
  });
});

describe('fields', () => {
  it('keeps the order given and removes duplicates', () => {
    expect(parseListQuery({ fields: 'c,a,c,b,a' }, API).fields).toEqual(['c', 'a', 'b']);
  });

  it('supports escaped commas in names', () => {
    expect(parseListQuery({ fields: 'a\\,b,c' }, API).fields).toEqual(['a,b', 'c']);
  });

  it('treats an empty parameter as no projection', () => {
    expect(parseListQuery({ fields: '' }, API).fields).toBeNull();
  });
});

describe('format, callback, meta, values', () => {
  it.each(['json', 'csv', 'tsv', 'xml'] as const)('accepts format=%s', (f) => {
    expect(parseListQuery({ format: f }, API).format).toBe(f);
  });

  it.each(['html', 'JSON', '', 'yaml'])('rejects format=%j', (f) => {
    invalidParam({ format: f }, 'format');
  });

  it('requires a callback for jsonp', () => {
    invalidParam({ format: 'jsonp' }, 'callback');
    invalidParam({ format: 'jsonp', callback: '' }, 'callback');
  });

  it.each(['cb', 'jQuery3710_1712', '$', '_x', 'a.b.c', 'app.handlers.v1.rows.done', `a${'b'.repeat(63)}`])(
    'accepts callback=%j',
    (cb) => {
      expect(parseListQuery({ format: 'jsonp', callback: cb }, API).callback).toBe(cb);
    },
  );

  it.each([
    'alert(1)',
    '1abc',
    'a..b',
    'a.',
    '.a',
    'a.b.c.d.e.f',
    `a${'b'.repeat(64)}`,
    'a-b',
    'a b',
    'a[0]',
    'é',
  ])('rejects callback=%j', (cb) => {
    invalidParam({ format: 'jsonp', callback: cb }, 'callback');
  });

  it('ignores callback for other formats', () => {
    expect(parseListQuery({ format: 'json', callback: 'alert(1)' }, API).callback).toBeNull();
  });

  it.each([
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ] as const)('meta=%s -> %s', (v, expected) => {
    expect(parseListQuery({ meta: v }, API).meta).toBe(expected);
  });

  it.each(['yes', 'TRUE', '', '2'])('rejects meta=%j', (v) => {
    invalidParam({ meta: v }, 'meta');
  });

  it('accepts values=typed|formatted', () => {
    expect(parseListQuery({ values: 'typed' }, API).values).toBe('typed');
    expect(parseListQuery({ values: 'formatted' }, API).values).toBe('formatted');
  });

  it.each(['raw', 'Formatted', ''])('rejects values=%j', (v) => {
    invalidParam({ values: v }, 'values');
  });
});

describe('parseRowViewQuery', () => {
  it('returns only fields, values, format and callback', () => {
    expect(
      parseRowViewQuery({ fields: 'b,a', values: 'formatted', format: 'jsonp', callback: 'cb', limit: 'x' }),
    ).toEqual({ fields: ['b', 'a'], values: 'formatted', format: 'jsonp', callback: 'cb' });
  });

  it('has the list defaults', () => {
    expect(parseRowViewQuery({})).toEqual({ fields: null, values: 'typed', format: 'json', callback: null });
  });

  it('validates the same way', () => {
    expect(caught(() => parseRowViewQuery({ format: 'pdf' })).details).toEqual({ parameter: 'format' });
    expect(caught(() => parseRowViewQuery({ format: 'jsonp' })).details).toEqual({ parameter: 'callback' });
    expect(caught(() => parseRowViewQuery({ values: 'x' })).details).toEqual({ parameter: 'values' });
    expect(caught(() => parseRowViewQuery({ fields: ['a', 'b'] })).details).toEqual({ parameter: 'fields' });
  });
});
