/**
 * Values for a documented schema (JSON Schema as docs/openapi.json writes it), mostly valid and sometimes not:
 * members the schema asks for, real ids where a member names one (a `Pick` from the run's pools, by member
 * name), and now and then a value of the wrong type, out of range, or a member the schema does not declare.
 */
import fc from 'fast-check';
import { anyJson, edgeNumber, oddText, type Scale } from './hostile-values.ts';
import { DOC, deref, type Schema } from './operations.ts';
import type { Pick, PoolName } from './pools.ts';

const pick = (pool: PoolName): fc.Arbitrary<Pick> => fc.nat().map((n) => ({ pool, pick: n }));
/** A real value from `pool` most of the time, else an odd one. */
const realOr = (pool: PoolName, scale: Scale) =>
  fc.oneof({ arbitrary: pick(pool), weight: 4 }, { arbitrary: oddText(scale), weight: 1 });

/** A cell value as a client writes it: typed values, text of every shape, dates, formulas, and wrong types. */
export const cellValue = (scale: Scale) =>
  fc.oneof(
    { arbitrary: fc.string({ maxLength: 12 }), weight: 4 },
    { arbitrary: fc.integer({ min: -1000, max: 100_000 }), weight: 3 },
    { arbitrary: fc.boolean(), weight: 1 },
    { arbitrary: fc.constantFrom(null, ''), weight: 1 },
    { arbitrary: edgeNumber, weight: 1 },
    {
      arbitrary: fc.constantFrom(
        '2024-03-01',
        '2024-02-30',
        '1900-02-28',
        '2024-03-01T09:30:00',
        '=1+1',
        '007',
      ),
      weight: 1,
    },
    { arbitrary: oddText(scale), weight: 1 },
    { arbitrary: fc.constantFrom([], {}, [1], { v: 1 }), weight: 1 },
  );

/** A row's fields: header names (real, or odd) to cell values; `rowEntries` keeps names that are picks. */
export const rowInput = (scale: Scale) =>
  fc
    .array(
      fc.tuple(
        fc.oneof({ arbitrary: pick('header'), weight: 6 }, { arbitrary: oddText(scale), weight: 1 }),
        cellValue(scale),
      ),
      {
        minLength: 0,
        maxLength: 5,
      },
    )
    .map((entries) => ({ rowEntries: entries }));

/** Members whose values name something real: generated from the run's pools. */
function hinted(name: string, scale: Scale): fc.Arbitrary<unknown> | null {
  switch (name) {
    case 'url':
      return fc.oneof(
        { arbitrary: pick('webhookUrl'), weight: 5 },
        {
          arbitrary: fc.constantFrom(
            'https://example.com/hook',
            'http://169.254.169.254/latest',
            'http://10.0.0.1/hook',
            'http://[fe80::1]/x',
            'ftp://127.0.0.1/x',
            'http://user:pass@127.0.0.1:9/x',
            'http://127.0.0.1:1/refused',
            'not a url',
          ),
          weight: 3,
        },
        { arbitrary: oddText(scale), weight: 1 },
      );
    case 'spreadsheet_id':
      return realOr('spreadsheetId', scale);
    case 'sheet_name':
      return realOr('sheetName', scale);
    case 'location':
      return fc.oneof(
        { arbitrary: pick('location'), weight: 3 },
        {
          arbitrary: fc.constantFrom(
            '/etc/passwd',
            '/nonexistent/book.xlsx',
            'relative.xlsx',
            '/tmp',
            '/dev/zero',
          ),
          weight: 2,
        },
        { arbitrary: oddText(scale), weight: 1 },
      );
    case 'row':
      return fc.oneof(
        { arbitrary: pick('row').map((p) => ({ ...p, asNumber: true })), weight: 5 },
        { arbitrary: anyJson(scale), weight: 1 },
      );
    case 'code':
      return realOr('signInCode', scale);
    case 'connections':
      return fc.array(realOr('spreadsheetId', scale), { maxLength: 3 });
    default:
      return null;
  }
}

function merged(schema: Schema): Schema {
  const at = deref(schema);
  if (!at?.allOf) return at;
  const parts = at.allOf.map(merged);
  return {
    ...Object.assign({}, ...parts),
    ...at,
    allOf: undefined,
    properties: Object.assign({}, ...parts.map((p: Schema) => p.properties ?? {}), at.properties ?? {}),
    required: [...new Set(parts.flatMap((p: Schema) => p.required ?? []).concat(at.required ?? []))],
  };
}

function objectValue(schema: Schema, scale: Scale, depth: number): fc.Arbitrary<unknown> {
  if (deref(schema.additionalProperties) === DOC.components.schemas.CellInput) return rowInput(scale);
  const members = Object.entries((schema.properties ?? {}) as Record<string, Schema>);
  const required = new Set<string>(schema.required ?? []);
  const shape = Object.fromEntries(
    members.map(([name, member]) => [name, valueFor(member, scale, depth + 1, name)]),
  );
  const record = fc.record(shape, { requiredKeys: members.map(([n]) => n).filter((n) => required.has(n)) });
  return fc.oneof(
    { arbitrary: record, weight: 12 },
    { arbitrary: record.map((r) => ({ ...r, unexpected_member: 1 })), weight: 1 },
  );
}

function typedValue(schema: Schema, type: string, scale: Scale, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'object':
      return objectValue(schema, scale, depth);
    case 'array':
      return fc.array(valueFor(schema.items ?? {}, scale, depth + 1), {
        minLength: Math.min(schema.minItems ?? 0, 3),
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'integer':
      return fc.oneof(fc.integer({ min: schema.minimum ?? -5, max: schema.maximum ?? 1000 }), edgeNumber);
    case 'number':
      return edgeNumber;
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return schema.format === 'date-time'
        ? fc.constantFrom('2024-03-01T00:00:00Z', '2000-01-01T00:00:00.000Z', '2024-13-01T00:00:00Z')
        : fc.oneof(
            { arbitrary: fc.string({ maxLength: 16 }), weight: 3 },
            { arbitrary: oddText(scale), weight: 1 },
          );
  }
}

/** A value for `schema`; `name` is the member it fills (for the pools' hints). */
export function valueFor(schema: Schema, scale: Scale, depth = 0, name = ''): fc.Arbitrary<unknown> {
  const hint = hinted(name, scale);
  if (hint) return hint;
  const at = merged(schema);
  if (!at || depth > 6) return fc.constant(null);
  const choices: fc.Arbitrary<unknown>[] = [];
  if (at.enum) choices.push(fc.constantFrom(...at.enum));
  else if (at.oneOf || at.anyOf)
    choices.push(...(at.oneOf ?? at.anyOf).map((s: Schema) => valueFor(s, scale, depth + 1)));
  else {
    const types: string[] = Array.isArray(at.type)
      ? at.type
      : [at.type ?? (at.properties ? 'object' : 'string')];
    choices.push(...types.map((t) => typedValue(at, t, scale, depth)));
  }
  return fc.oneof({ arbitrary: fc.oneof(...choices), weight: 15 }, { arbitrary: anyJson(scale), weight: 1 });
}
