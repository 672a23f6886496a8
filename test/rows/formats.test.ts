import vm from 'node:vm';
import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { QueryResult } from '../../server/rows/engine.ts';
import type { OutputFormat } from '../../server/rows/formats/index.ts';
import { type Rendered, renderList, renderOne, rowObject } from '../../server/rows/formats/index.ts';
import type { CellValue } from '../../server/sources/source.ts';

const ODD = [
  'First Name',
  '__proto__',
  'constructor',
  '',
  '1abc',
  '<&>',
  'a,b',
  'a:b',
  'ünï 名前',
  'a.b',
  'x"y',
];

const result: QueryResult = {
  total: 7,
  fields: ['name', 'age', 'ok', 'note'],
  rows: [
    { index: 1, values: ['Ann', 31, true, null] },
    { index: 4, values: ['Bob "B", Jr.', 2.5, false, 'line1\r\nline2\nend'] },
    { index: 6, values: ['tab\there', -0, false, 'back\\slash'] },
    { index: 7, values: ['', 1e21, true, '=SUM(A1)'] },
  ],
};

const page: { callback: string | null; meta: boolean; limit: number; offset: number } = {
  callback: null,
  meta: false,
  limit: 4,
  offset: 2,
};

/** Bodies as text: JSON lists come back as bytes, the other formats as strings. */
function text(r: Rendered): { contentType: string; body: string } {
  return { contentType: r.contentType, body: r.body.toString() };
}

const listText = (...args: Parameters<typeof renderList>) => text(renderList(...args));

function list(format: OutputFormat, extra: Partial<typeof page> = {}): { contentType: string; body: string } {
  return text(renderList(result, { ...page, ...extra, format }));
}

/** Evaluates a JSONP body and returns the argument passed to the callback. */
function runJsonp(body: string, callback: string): unknown {
  let captured: unknown;
  const context: Record<string, unknown> = {};
  const path = callback.split('.');
  let target = context;
  for (const part of path.slice(0, -1)) {
    target[part] = {};
    target = target[part] as Record<string, unknown>;
  }
  target[path.at(-1)!] = (arg: unknown) => {
    captured = arg;
  };
  vm.runInNewContext(body, context);
  // Re-serialise inside this realm so toEqual compares plain values.
  return JSON.parse(JSON.stringify(captured));
}

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  htmlEntities: true,
  isArray: (name) => name === 'row' || name === 'field',
});

interface XmlField {
  '@_name': string;
  '@_type': string;
  '#text'?: string;
}

/** Decode the <field> elements of one parsed <row> back to [name, value] pairs. */
function decodeFields(fields: XmlField[]): [string, CellValue][] {
  return fields.map((f) => {
    const text = f['#text'] ?? '';
    const type = f['@_type'];
    const v: CellValue =
      type === 'null' ? null : type === 'number' ? Number(text) : type === 'boolean' ? text === 'true' : text;
    return [f['@_name'], v];
  });
}

describe('json', () => {
  it('shape A: a bare array of objects keyed by field, with the JSON content type', () => {
    const r = list('json');
    expect(r.contentType).toBe('application/json; charset=utf-8');
    expect(JSON.parse(r.body)).toEqual([
      { name: 'Ann', age: 31, ok: true, note: null },
      { name: 'Bob "B", Jr.', age: 2.5, ok: false, note: 'line1\r\nline2\nend' },
      { name: 'tab\there', age: 0, ok: false, note: 'back\\slash' },
      { name: '', age: 1e21, ok: true, note: '=SUM(A1)' },
    ]);
  });

  it('shape B with meta', () => {
    const body = JSON.parse(list('json', { meta: true }).body);
    expect(body.meta).toEqual({ total: 7, limit: 4, offset: 2 });
    expect(body.data).toHaveLength(4);
    expect(body.data[0]).toEqual({ name: 'Ann', age: 31, ok: true, note: null });
  });

  it('keeps keys in the projected order', () => {
    const r = listText(
      { total: 1, fields: ['z', 'a', 'm'], rows: [{ index: 1, values: [1, 2, 3] }] },
      { ...page, format: 'json' },
    );
    expect(Object.keys(JSON.parse(r.body)[0])).toEqual(['z', 'a', 'm']);
    expect(r.body).toBe('[{"z":1,"a":2,"m":3}]');
  });

  it('writes any header name as an own key, including __proto__', () => {
    const values = ODD.map((_, i) => `v${i}`);
    const r = listText({ total: 1, fields: ODD, rows: [{ index: 1, values }] }, { ...page, format: 'json' });
    const [obj] = JSON.parse(r.body) as Record<string, unknown>[];
    expect(Object.keys(obj!)).toEqual(ODD);
    expect(Object.hasOwn(obj!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    ODD.forEach((k, i) => {
      expect(Object.getOwnPropertyDescriptor(obj, k)?.value).toBe(`v${i}`);
    });
  });

  it('an empty page is [] (shape A) and data: [] (shape B)', () => {
    const empty = { total: 3, fields: ['a'], rows: [] };
    expect(text(renderList(empty, { ...page, format: 'json' })).body).toBe('[]');
    expect(
      JSON.parse(text(renderList(empty, { ...page, format: 'json', meta: true, limit: 0 })).body),
    ).toEqual({
      data: [],
      meta: { total: 3, limit: 0, offset: 2 },
    });
  });

  it('single row: one object', () => {
    const r = renderOne(
      { index: 3, fields: ['b', 'a'], values: ['x', null] },
      { format: 'json', callback: null },
    );
    expect(r.contentType).toBe('application/json; charset=utf-8');
    expect(JSON.parse(r.body)).toEqual({ b: 'x', a: null });
  });
});

describe('rowObject', () => {
  it('creates own keys for every name, in order, with a normal prototype', () => {
    const values = ODD.map((_, i) => i);
    const o = rowObject(ODD, values);
    expect(Object.keys(o)).toEqual(ODD);
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(o, '__proto__')?.value).toBe(1);
    expect(o.constructor).toBe(2);
    expect(JSON.parse(JSON.stringify(o))).toEqual(
      JSON.parse(renderOne({ index: 1, fields: ODD, values }, { format: 'json', callback: null }).body),
    );
  });
});

describe('csv', () => {
  it('is RFC 4180 with CRLF line ends and a header line', () => {
    const r = list('csv');
    expect(r.contentType).toBe('text/csv; charset=utf-8');
    const lines = r.body.split('\r\n');
    expect(lines[0]).toBe('name,age,ok,note');
    expect(lines[1]).toBe('Ann,31,true,');
    expect(r.body.endsWith('\r\n')).toBe(true);
    expect(r.body).toContain('"Bob ""B"", Jr.",2.5,false,"line1\r\nline2\nend"\r\n');
    // No bare LF outside quoted fields: every record ends in CRLF.
    expect(r.body.replace(/"(?:[^"]|"")*"/g, '').match(/[^\r]\n/)).toBeNull();
  });

  it('parses back with csv-parse (quotes, embedded newlines, commas; values unaltered)', () => {
    const records = parseCsv(list('csv').body, { record_delimiter: '\r\n' }) as string[][];
    expect(records).toEqual([
      ['name', 'age', 'ok', 'note'],
      ['Ann', '31', 'true', ''],
      ['Bob "B", Jr.', '2.5', 'false', 'line1\r\nline2\nend'],
      ['tab\there', '0', 'false', 'back\\slash'],
      ['', '1e+21', 'true', '=SUM(A1)'],
    ]);
  });

  it('handles odd header names', () => {
    const r = listText(
      { total: 1, fields: ODD, rows: [{ index: 1, values: ODD }] },
      { ...page, format: 'csv' },
    );
    expect(parseCsv(r.body)).toEqual([ODD, ODD]);
  });

  it('keeps a single empty column from becoming a blank (skipped) line', () => {
    const r = listText(
      {
        total: 2,
        fields: ['only'],
        rows: [
          { index: 1, values: [null] },
          { index: 2, values: ['x'] },
        ],
      },
      { ...page, format: 'csv' },
    );
    expect(parseCsv(r.body)).toEqual([['only'], [''], ['x']]);
  });

  it('single row: header + one line', () => {
    const r = renderOne(
      { index: 2, fields: ['a', 'b'], values: ['x,y', 3] },
      { format: 'csv', callback: null },
    );
    expect(r.body).toBe('a,b\r\n"x,y",3\r\n');
  });

  it('an empty page is just the header line', () => {
    expect(renderList({ total: 0, fields: ['a', 'b'], rows: [] }, { ...page, format: 'csv' }).body).toBe(
      'a,b\r\n',
    );
  });
});

describe('tsv', () => {
  const unescapeTsv = (s: string): string =>
    s.replace(/\\([tnr\\])/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '\\': '\\' })[c]!);

  it('has a header line, LF line ends, and escapes tab/CR/LF/backslash', () => {
    const r = list('tsv');
    expect(r.contentType).toBe('text/tab-separated-values; charset=utf-8');
    expect(r.body.endsWith('\n')).toBe(true);
    expect(r.body).not.toContain('\r');
    const lines = r.body.slice(0, -1).split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[1]).toBe('Ann\t31\ttrue\t');
    expect(lines[2]).toBe('Bob "B", Jr.\t2.5\tfalse\tline1\\r\\nline2\\nend');
    expect(lines[3]).toBe('tab\\there\t0\tfalse\tback\\\\slash');
    const parsed = lines.map((l) => l.split('\t').map(unescapeTsv));
    expect(parsed).toEqual([
      ['name', 'age', 'ok', 'note'],
      ['Ann', '31', 'true', ''],
      ['Bob "B", Jr.', '2.5', 'false', 'line1\r\nline2\nend'],
      ['tab\there', '0', 'false', 'back\\slash'],
      ['', '1e+21', 'true', '=SUM(A1)'],
    ]);
  });

  it('escapes header names too', () => {
    const r = renderOne(
      { index: 1, fields: ['a\tb', 'c\\d'], values: ['1', '2'] },
      { format: 'tsv', callback: null },
    );
    expect(r.body).toBe('a\\tb\tc\\\\d\n1\t2\n');
    expect(
      r.body
        .slice(0, -1)
        .split('\n')
        .map((l) => l.split('\t').map(unescapeTsv)),
    ).toEqual([
      ['a\tb', 'c\\d'],
      ['1', '2'],
    ]);
  });
});

describe('xml', () => {
  it('is well-formed and carries totals, indices, names, types and values', () => {
    const r = list('xml');
    expect(r.contentType).toBe('application/xml; charset=utf-8');
    expect(
      r.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<rows total="7" limit="4" offset="2">'),
    ).toBe(true);
    expect(XMLValidator.validate(r.body)).toBe(true);
    const doc = xmlParser.parse(r.body);
    expect(doc.rows['@_total']).toBe('7');
    const rows = doc.rows.row as { '@_index': string; field: XmlField[] }[];
    expect(rows.map((x) => x['@_index'])).toEqual(['1', '4', '6', '7']);
    expect(rows.map((x) => decodeFields(x.field))).toEqual([
      [
        ['name', 'Ann'],
        ['age', 31],
        ['ok', true],
        ['note', null],
      ],
      [
        ['name', 'Bob "B", Jr.'],
        ['age', 2.5],
        ['ok', false],
        ['note', 'line1\r\nline2\nend'],
      ],
      [
        ['name', 'tab\there'],
        ['age', 0],
        ['ok', false],
        ['note', 'back\\slash'],
      ],
      [
        ['name', ''],
        ['age', 1e21],
        ['ok', true],
        ['note', '=SUM(A1)'],
      ],
    ]);
  });

  it('distinguishes null from empty text', () => {
    const r = renderOne(
      { index: 2, fields: ['a', 'b'], values: [null, ''] },
      { format: 'xml', callback: null },
    );
    expect(r.body).toContain('<field name="a" type="null"/>');
    expect(r.body).toContain('<field name="b" type="string"></field>');
    const doc = xmlParser.parse(r.body);
    expect(decodeFields(doc.row[0].field)).toEqual([
      ['a', null],
      ['b', ''],
    ]);
  });

  it('is well-formed for any header name, and the names are recoverable', () => {
    const fields = [...ODD, 'tab\there', 'new\nline', "it's", ' padded '];
    const values = fields.map((f) => `<${f}>&`);
    const r = listText({ total: 1, fields, rows: [{ index: 9, values }] }, { ...page, format: 'xml' });
    expect(XMLValidator.validate(r.body)).toBe(true);
    const doc = xmlParser.parse(r.body);
    const decoded = decodeFields(doc.rows.row[0].field);
    expect(decoded.map(([n]) => n)).toEqual(fields);
    expect(decoded.map(([, v]) => v)).toEqual(values);
  });

  it('replaces characters XML 1.0 does not allow with U+FFFD', () => {
    const bad = 'a\u0001b\u0008c\u001Fd\uFFFEe\uFFFFf\uD800g\uDC00h';
    const r = renderOne(
      { index: 1, fields: [`n\u0000${bad}`], values: [bad] },
      { format: 'xml', callback: null },
    );
    expect(r.body).not.toMatch(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/);
    expect(r.body).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(XMLValidator.validate(r.body)).toBe(true);
    const doc = xmlParser.parse(r.body);
    const [[name, value]] = decodeFields(doc.row[0].field) as [[string, CellValue]];
    expect(value).toBe('a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg\uFFFDh');
    expect(name).toBe(`n\uFFFD${value}`);
  });

  it('keeps valid astral characters (surrogate pairs) and allowed whitespace', () => {
    const r = renderOne({ index: 1, fields: ['e'], values: ['😀\t\n'] }, { format: 'xml', callback: null });
    expect(decodeFields(xmlParser.parse(r.body).row[0].field)).toEqual([['e', '😀\t\n']]);
  });

  it('single row: <row index="n"> is the root element', () => {
    const r = renderOne({ index: 12, fields: ['a'], values: [1] }, { format: 'xml', callback: null });
    expect(r.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<row index="12"><field name="a" type="number">1</field></row>\n',
    );
    expect(XMLValidator.validate(r.body)).toBe(true);
  });

  it('an empty page is an empty <rows> element', () => {
    const r = listText({ total: 5, fields: ['a'], rows: [] }, { ...page, format: 'xml', offset: 50 });
    expect(XMLValidator.validate(r.body)).toBe(true);
    expect(xmlParser.parse(r.body).rows).toMatchObject({ '@_total': '5', '@_offset': '50' });
  });
});

describe('jsonp', () => {
  it('wraps shape A in /**/callback(...); with the JavaScript content type', () => {
    const r = list('jsonp', { callback: 'cb' });
    expect(r.contentType).toBe('application/javascript; charset=utf-8');
    expect(r.body.startsWith('/**/cb(')).toBe(true);
    expect(r.body.endsWith(');')).toBe(true);
    expect(runJsonp(r.body, 'cb')).toEqual(JSON.parse(list('json').body));
  });

  it('wraps shape B when meta is on, and supports dotted callbacks', () => {
    const r = list('jsonp', { callback: 'app.handlers.done', meta: true });
    expect(runJsonp(r.body, 'app.handlers.done')).toEqual(JSON.parse(list('json', { meta: true }).body));
  });

  it('escapes U+2028 and U+2029', () => {
    const r = renderOne(
      { index: 1, fields: ['s\u2028'], values: ['a\u2028b\u2029c'] },
      { format: 'jsonp', callback: 'cb' },
    );
    expect(r.body).not.toMatch(/[\u2028\u2029]/);
    expect(r.body).toContain('a\\u2028b\\u2029c');
    expect(runJsonp(r.body, 'cb')).toEqual({ 's\u2028': 'a\u2028b\u2029c' });
  });

  it('single row: callback(object)', () => {
    const r = renderOne(
      { index: 1, fields: ['__proto__', 'n'], values: ['x', 1] },
      { format: 'jsonp', callback: '$cb' },
    );
    const arg = runJsonp(r.body, '$cb') as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(arg, '__proto__')?.value).toBe('x');
    expect(arg.n).toBe(1);
  });

  it('delivers a __proto__ field as an own key even when evaluated as JavaScript', () => {
    const values = ODD.map((f) => (f === '__proto__' ? null : f));
    const r = listText(
      { total: 1, fields: ODD, rows: [{ index: 1, values }] },
      { ...page, format: 'jsonp', callback: 'cb' },
    );
    let arg: Record<string, unknown> = {};
    vm.runInNewContext(r.body, {
      cb: (a: Record<string, unknown>[]) => {
        arg = a[0]!;
      },
    });
    expect(Object.keys(arg)).toEqual(ODD);
    expect(Object.getOwnPropertyDescriptor(arg, '__proto__')?.value).toBeNull();
    expect(Object.getPrototypeOf(arg)).not.toBeNull();
    expect(arg['a.b']).toBe('a.b');
  });

  it('refuses to render without a callback', () => {
    expect(() =>
      renderOne({ index: 1, fields: [], values: [] }, { format: 'jsonp', callback: null }),
    ).toThrow();
  });
});
