/**
 * Request bodies nested deeper than MAX_JSON_DEPTH, or holding more than MAX_JSON_VALUES values, are refused, 400
 * invalid_body, before anything parses them (http/json-bounds.ts): on every write route of the real app, with and
 * without an Idempotency-Key (whose fingerprint, JSON.stringify over the parsed body, overflowed the stack and
 * answered 500), and on `/mcp`, whose body limit is its own. A body at a bound passes; brackets and commas inside
 * strings do not count.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { jsonFault, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../server/http/json-bounds.ts';
import type { RouteEntry } from '../../server/http/route-table.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

/** `{"a":{"a": ... 1 ... }}`, `depth` objects deep. */
const nested = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** `[[[ ... ]]]`, `depth` arrays deep. */
const nestedArrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

let h: Harness;
let routes: readonly RouteEntry[];
beforeAll(async () => {
  h = await startHarness();
  ({ routes } = createApp(h.context));
});
afterAll(async () => {
  await h?.close();
});

/** A route's path with each parameter filled in (the body is refused before any of them is looked up). */
const concrete = (path: string): string => path.replace(/\/:\w+/g, '/x').replaceAll('\\:', ':');

function send(entry: RouteEntry, body: string, idempotencyKey?: string) {
  const admin = entry.access === 'admin' || entry.access === 'sign_in';
  return h.fetch(concrete(entry.path), {
    method: entry.method.toUpperCase(),
    headers: {
      'content-type': 'application/json',
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    },
    body,
    ...(admin ? { auth: h.context.adminToken } : {}),
  });
}

describe(`bodies holding more than ${MAX_JSON_VALUES} values`, () => {
  it('are 400 invalid_body before they are parsed; a body at the bound reaches the route', async () => {
    const connection = (await h.connectBook(await writePeopleWorkbook(h.dir, 'values.xlsx'))).connection;
    const post = (body: string, path = rowsPath(connection, 'People')) =>
      h.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const over = await post(`[${Array.from({ length: MAX_JSON_VALUES + 1 }, () => '{}').join(',')}]`);
    expect(over.status).toBe(400);
    const { error } = await over.json();
    expect(error.code).toBe('invalid_body');
    expect(error.message).toContain('more than 100,000 values');
    // 500 rows of 199 fields (and the 500 rows themselves): just under the bound, so the route answers.
    const row = Object.fromEntries(Array.from({ length: 199 }, (_, i) => [`F${i}`, 'v']));
    const atBound = await post(JSON.stringify(Array.from({ length: 500 }, () => row)));
    expect((await atBound.json()).error.message).not.toContain('values');
    // Commas inside text are text: 500 rows of 300 commas each.
    const commas = await post(JSON.stringify(Array.from({ length: 500 }, () => ({ Name: ','.repeat(300) }))));
    expect(commas.status).toBe(201);
    const onMcp = await h.fetch('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":[${'1,'.repeat(MAX_JSON_VALUES)}1]}`,
    });
    expect(onMcp.status).toBe(400);
    expect((await onMcp.json()).error.message).toContain('more than 100,000 values');
  });
});

describe(`bodies nested deeper than ${MAX_JSON_DEPTH} levels`, () => {
  it('are 400 invalid_body on every write route, with an Idempotency-Key or without', async () => {
    const writes = routes.filter((e) => e.method !== 'get');
    expect(writes.length).toBeGreaterThan(30);
    const deep = nested(10_000);
    for (const [i, entry] of writes.entries()) {
      for (const key of [`deep-${i}`, undefined]) {
        const res = await send(entry, i % 2 === 0 ? deep : nestedArrays(50_000), key);
        const what = `${entry.method} ${entry.path} (key: ${key ?? 'none'})`;
        expect(res.status, what).toBe(400);
        const { error } = await res.json();
        expect(error.code, what).toBe('invalid_body');
        expect(error.message, what).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
      }
    }
    // Nothing was written meanwhile, and the server still answers.
    expect((await h.fetch('/healthz')).status).toBe(200);
  });

  it('are 400 invalid_body on /mcp, whose body limit is its own', async () => {
    const res = await h.fetch('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":${nested(MAX_JSON_DEPTH)}}`,
    });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('invalid_body');
    expect(error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('leave a body at the bound, and brackets inside strings, to the route', async () => {
    const connection = (await h.connectBook(await writePeopleWorkbook(h.dir))).connection;
    const path = rowsPath(connection, 'People');
    const post = (body: string) =>
      h.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    // At the bound: the route itself says what is wrong (a cell cannot hold an object).
    const atBound = await post(`{"Name":${nested(MAX_JSON_DEPTH - 1)}}`);
    expect(atBound.status).toBe(400);
    expect((await atBound.json()).error.message).not.toContain('levels');
    const overBound = await post(`{"Name":${nested(MAX_JSON_DEPTH)}}`);
    expect((await overBound.json()).error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
    // Text full of brackets and escaped quotes is text.
    const name = `${'[{'.repeat(5_000)}\\"[{"\\\\`;
    const created = await h.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'brackets-in-text' },
      body: JSON.stringify({ Name: name }),
    });
    expect(created.status).toBe(201);
    const rows = await (await h.fetch(path)).json();
    expect(rows.at(-1).Name).toBe(name);
  });
});

/** The nesting depth of a parsed JSON value, walked as a tree. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

/** The array elements and object members of a parsed JSON value, all levels. */
function valuesOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.length + children.reduce<number>((sum, child) => sum + valuesOf(child), 0);
}

describe('the scan', () => {
  it('agrees with the depth and the values of the parsed value, whatever the strings hold', () => {
    const text = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', ',', ':', 'a', 'é') });
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, text, fc.integer(), tie('array'), tie('object')),
      array: fc.array(tie('node'), { maxLength: 4 }),
      object: fc.dictionary(text, tie('node'), { maxKeys: 4 }),
    })).node;
    fc.assert(
      fc.property(
        value,
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 12 }),
        (v, depth, values) => {
          const bytes = Buffer.from(JSON.stringify(v, null, depth % 2 === 0 ? 0 : 1));
          const expected = depthOf(v) > depth ? 'depth' : valuesOf(v) > values ? 'values' : null;
          const found = jsonFault(bytes, depth, values);
          // Both bounds broken: the scan names the one it meets first.
          return expected === null
            ? found === null
            : found !== null && (found === expected || depthOf(v) > depth);
        },
      ),
      { numRuns: 3_000 },
    );
  });
});
