/**
 * Values a hostile or careless client sends: odd and long text, percent runs, names of Object.prototype's
 * members, numbers at the edges of what JSON and spreadsheets hold, and whole bodies that are not what a route
 * reads (deep nesting, wrong types, not JSON, not UTF-8, the wrong content type).
 */
import fc from 'fast-check';

/** How long the longest generated text may be: the suite keeps it short, a release run goes to the limits. */
export interface Scale {
  /** The longest text in a body. */
  longText: number;
  /** The longest text in a URL or a header (encoded, a URL past 16 KiB is refused: those are answers too). */
  urlText: number;
  deepNesting: number;
}

export const SUITE_SCALE: Scale = { longText: 40_000, urlText: 6_000, deepNesting: 20_000 };
/** Up to the limits: a text of 2.4 M characters is 4.8 MB as UTF-8 at two bytes a character; 800,000 levels of
 * `{"a":...}` are 4.8 MB. Some bodies still pass 5 MB (a `%41` text, a body declared larger): those are refusals. */
export const RELEASE_SCALE: Scale = { longText: 2_400_000, urlText: 17_000, deepNesting: 800_000 };

/** The scale for what goes into a URL or a header: its long texts are the URL's. */
export const inUrl = (scale: Scale): Scale => ({ ...scale, longText: scale.urlText });

const ODD_TEXT = [
  '',
  ' ',
  '%',
  '%%',
  '%zz',
  '%00',
  '%2F',
  '%252F',
  '..',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'toString',
  'Orders\u0000',
  '\u200b',
  'é',
  'e\u0301',
  '😀',
  '\uD800',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '=HYPERLINK("http://x")',
  '+cmd',
  '-1',
  '@SUM(A1)',
  "'=x",
  '1e3',
  '0x10',
  '-0',
  '9007199254740993',
  'NaN',
  'Infinity',
  'null',
  'true',
  'sp_AAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  'sp%5FAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
];

/** Text that is long, and holds a percent sign somewhere in it (the shape that once cost quadratic time). */
export const longText = (scale: Scale) =>
  fc
    .tuple(
      fc.integer({ min: 1_000, max: scale.longText }),
      fc.constantFrom('A', 'é', '%41', 'a/b'),
      fc.boolean(),
    )
    .map(([length, unit, percentFirst]) => {
      const run = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
      return percentFirst ? `%${run}` : `${run}%`;
    });

export const oddText = (scale: Scale) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...ODD_TEXT), weight: 4 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 4 },
    { arbitrary: longText(scale), weight: 1 },
  );

const EDGE_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.1,
  1e308,
  -1e308,
  2 ** 53,
  -(2 ** 53),
  5e-324,
  2958465,
  2958466,
  45000.5,
  61,
  60,
  1,
];

export const edgeNumber = fc.oneof(
  fc.constantFrom(...EDGE_NUMBERS),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A JSON value of any type: what lands where a route wanted another type. */
export const anyJson = (scale: Scale) =>
  fc.oneof(
    fc.constant(null),
    fc.boolean(),
    edgeNumber,
    oddText(scale),
    fc.constant([]),
    fc.constant({}),
    fc.constant({ nested: { deeper: [1, 2] } }),
  );

export interface RawBody {
  bytes: Buffer;
  contentType: string | null;
  /** A Content-Length to declare instead of the body's own (a body announced larger than it is). */
  declaredLength?: number;
}

const json = (text: string, contentType: string | null = 'application/json'): RawBody => ({
  bytes: Buffer.from(text),
  contentType,
});

function nested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Whole bodies no route should take: each must be a 4xx in the contract's envelope, never a 5xx. */
export const hostileBody = (scale: Scale): fc.Arbitrary<RawBody> =>
  fc.oneof(
    fc
      .tuple(
        fc.constantFrom(33, 64, 1_000, scale.deepNesting),
        fc.constantFrom('array' as const, 'object' as const),
      )
      .map(([depth, kind]) => json(nested(depth, kind))),
    fc.constantFrom(
      json('not json'),
      json('{'),
      json(''),
      json('null'),
      json('42'),
      json('"text"'),
      json('[]'),
      json('{}'),
      json('{"__proto__":{"polluted":true}}'),
      json('{"constructor":{"prototype":{"polluted":true}}}'),
      json('{"a":1,"a":2}'),
      json('\uFEFF{}'),
      json('{}', 'text/plain'),
      json('{}', 'application/x-www-form-urlencoded'),
      json('{}', 'multipart/form-data; boundary=x'),
      json('{}', 'application/json; charset=latin1'),
      json('{}', null),
      {
        bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        contentType: 'application/json',
      },
      { bytes: Buffer.from('{}'), contentType: 'application/json', declaredLength: 6 * 1024 * 1024 },
    ),
    longText(scale).map((text) =>
      json(JSON.stringify({ sheet_name: text, url: `https://example.com/${text}` })),
    ),
  );
