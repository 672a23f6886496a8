/**
 * One generated request for a documented operation, before its picks are resolved: which credential it sends,
 * its path parameters, query, headers and body. Valid most of the time (real ids from the pools, values the
 * schemas allow), so requests reach deep into the service; hostile the rest of the time.
 */
import fc from 'fast-check';
import { hostileBody, inUrl, oddText, type RawBody, type Scale } from './hostile-values.ts';
import { OPERATIONS, type Operation, type Parameter } from './operations.ts';
import type { Pick, PoolName } from './pools.ts';
import { valueFor } from './schema-values.ts';

export type Credential = 'readWrite' | 'read' | 'formulas' | 'free' | 'admin' | 'session' | 'none' | 'bogus';

export interface Plan {
  op: Operation;
  credential: Credential;
  path: Record<string, unknown>;
  query: [string, unknown][];
  headers: [string, unknown][];
  body: { json: unknown } | { raw: RawBody } | null;
}

const pick = (pool: PoolName): fc.Arbitrary<Pick> => fc.nat().map((n) => ({ pool, pick: n }));
const weighted = (...pairs: [fc.Arbitrary<unknown>, number][]): fc.Arbitrary<unknown> =>
  fc.oneof(...pairs.map(([arbitrary, weight]) => ({ arbitrary, weight })));

function credentialFor(op: Operation): fc.Arbitrary<Credential> {
  if (op.auth === 'admin')
    return fc.constantFrom<Credential>(
      'admin',
      'admin',
      'admin',
      'admin',
      'admin',
      'admin',
      'session',
      'none',
      'readWrite',
      'bogus',
    );
  if (op.auth === 'key')
    return fc.constantFrom<Credential>(
      'readWrite',
      'readWrite',
      'readWrite',
      'readWrite',
      'readWrite',
      'read',
      'read',
      'formulas',
      'free',
      'none',
      'bogus',
      'admin',
    );
  return fc.constantFrom<Credential>('none', 'none', 'none', 'readWrite', 'bogus');
}

/** The pool a path parameter's real values come from; destructive routes get only what the run may destroy. */
function pathPool(op: Operation, name: string): PoolName | null {
  const destroys = op.method === 'DELETE' || (op.method === 'PATCH' && op.template.startsWith('/admin/keys'));
  if (name === 'id') {
    if (op.template.startsWith('/v1/spreadsheets')) return 'spreadsheetId';
    if (op.template.includes('/webhooks/')) return op.method === 'DELETE' ? 'ownWebhookId' : 'webhookId';
    if (op.template.startsWith('/admin/keys')) return destroys ? 'spareKeyId' : 'keyId';
    if (op.template.startsWith('/admin/connections')) return destroys ? 'spareConnectionId' : 'connectionId';
  }
  const byName: Record<string, PoolName> = {
    userKey: 'userKey',
    sheetName: 'sheetName',
    sheet: 'sheetName',
    sheetId: 'sheetId',
    row: 'row',
    deliveryId: 'deliveryId',
    login: 'loginId',
  };
  return byName[name] ?? null;
}

function pathValue(op: Operation, p: Parameter, scale: Scale): fc.Arbitrary<unknown> {
  if (p.name === 'kind') return weighted([fc.constantFrom('google', 'workbook'), 6], [oddText(scale), 1]);
  const pool = pathPool(op, p.name);
  const odd =
    p.name === 'row' ? fc.constantFrom('0', '-1', '1.5', 'abc', '99999999999', '1e2') : oddText(scale);
  return pool ? weighted([pick(pool), 8], [odd, 1]) : oddText(scale);
}

const joined = (pool: PoolName, prefixes: string[]) =>
  fc
    .array(fc.tuple(fc.constantFrom(...prefixes), pick(pool)), { minLength: 1, maxLength: 3 })
    .map((parts) => ({ joined: parts }));

/** Query values by parameter name: what real clients send there, and what they get wrong. */
function queryValue(p: Parameter, scale: Scale): fc.Arbitrary<unknown> {
  const odd = oddText(scale);
  switch (p.name) {
    case 'limit':
    case 'offset':
      return weighted(
        [fc.integer({ min: 0, max: 40 }).map(String), 6],
        [fc.constantFrom('-1', '1e3', '99999999999999999999', 'abc', ''), 2],
        [odd, 1],
      );
    case 'search':
    case 'search_exact':
      return weighted(
        [
          fc.constantFrom(
            'Customer:ada',
            'Qty:3',
            'Shipped:true',
            'Note:007',
            'Nope:x',
            'Customer:a\\,b',
            'Customer',
            '::',
            'When:2024',
          ),
          5,
        ],
        [odd, 1],
      );
    case 'sort':
    case 'fields':
      return weighted(
        [joined('header', ['', '-']), 5],
        [fc.constantFrom('Nope', '--Qty', ',', ''), 1],
        [odd, 1],
      );
    case 'callback':
      return fc.constantFrom('cb', 'a.b.c', 'alert(1)', '', '$_x');
    case 'updated_since':
      return weighted(
        [fc.constantFrom('2000-01-01T00:00:00Z', '2024-03-01T00:00:00.000Z', '2024-03-01', 'yesterday'), 5],
        [odd, 1],
      );
    case 'sheet':
      return weighted([pick('sheetName'), 5], [odd, 1]);
    case 'webhook_id':
      return weighted([pick('webhookId'), 5], [odd, 1]);
    case 'stream_token':
      return weighted([pick('streamToken'), 3], [odd, 1]);
    default:
      return weighted(
        [valueFor(p.schema, scale).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))), 5],
        [odd, 1],
      );
  }
}

function query(op: Operation, scale: Scale): fc.Arbitrary<[string, unknown][]> {
  const documented = op.parameters.filter((p) => p.in === 'query');
  const each = documented.map((p) =>
    p.required
      ? queryValue(p, scale).map((v) => [[p.name, v]])
      : fc.option(
          queryValue(p, scale).map((v) => [[p.name, v]]),
          { nil: [] },
        ),
  );
  const extra = fc.option(
    fc.oneof(
      fc.tuple(fc.constantFrom('unknown', 'limit', 'sort', '__proto__'), oddText(scale)),
      fc.tuple(oddText(scale), fc.string({ maxLength: 4 })),
    ),
    { freq: 8, nil: null },
  );
  return fc
    .tuple(fc.tuple(...each), extra)
    .map(([lists, more]) => [...lists.flat(), ...(more ? [more] : [])] as [string, unknown][]);
}

function headers(op: Operation, scale: Scale): fc.Arbitrary<[string, unknown][]> {
  const writes = op.method !== 'GET';
  const rowWrite = writes && /\{row\}$/.test(op.template);
  const entries: fc.Arbitrary<[string, unknown] | null>[] = [
    fc.option(
      fc.tuple(fc.constant('x-request-id'), weighted([fc.string({ maxLength: 64 }), 3], [oddText(scale), 1])),
      { freq: 10, nil: null },
    ),
    writes
      ? fc.option(
          fc.tuple(
            fc.constant('idempotency-key'),
            weighted([pick('idempotencyKey'), 4], [oddText(scale), 1]),
          ),
          { freq: 3, nil: null },
        )
      : fc.constant(null),
    rowWrite
      ? fc.option(
          fc.tuple(
            fc.constant('if-match'),
            weighted([pick('etag'), 4], [fc.constantFrom('*', '"junk"', 'W/"x"'), 1]),
          ),
          { freq: 5, nil: null },
        )
      : fc.constant(null),
    !writes
      ? fc.option(
          fc.tuple(
            fc.constant('if-none-match'),
            weighted([pick('etag'), 2], [fc.constantFrom('*', '"junk"'), 2]),
          ),
          { freq: 8, nil: null },
        )
      : fc.constant(null),
  ];
  return fc.tuple(...entries).map((list) => list.filter((e) => e !== null));
}

function body(op: Operation, scale: Scale): fc.Arbitrary<Plan['body']> {
  const json = op.body ? valueFor(op.body, scale).map((value) => ({ json: value })) : fc.constant(null);
  const raw = hostileBody(scale).map((bytes) => ({ raw: bytes }));
  return weighted([json, op.body ? 8 : 24], [raw, op.body ? 2 : 1]) as fc.Arbitrary<Plan['body']>;
}

export function planFor(op: Operation, scale: Scale): fc.Arbitrary<Plan> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const url = inUrl(scale);
  const path = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, pathValue(op, p, url)])));
  return fc
    .tuple(credentialFor(op), path, query(op, url), headers(op, url), body(op, scale))
    .map(([credential, pathValues, q, h, b]) => ({
      op,
      credential,
      path: pathValues,
      query: q,
      headers: h,
      body: b,
    }));
}

/** Operations weighted so every one is reached often, the row routes (where data lives) most. */
function weightOf(op: Operation): number {
  if (op.template === '/admin/admin-token/rotate') return 1;
  if (op.template.startsWith('/api/') || op.template.includes('/rows')) return 8;
  return 3;
}

export const anyPlan = (scale: Scale): fc.Arbitrary<Plan> =>
  fc.oneof(...OPERATIONS.map((op) => ({ arbitrary: planFor(op, scale), weight: weightOf(op) })));
