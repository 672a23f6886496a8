/**
 * Real error answers, through real HTTP, are what docs/openapi.json says: the operation documents the status,
 * that response lists the code, and every member of `error` is declared by the ErrorDetail schema with the
 * JSON type (and values) it declares. The linter (openapi-lint.test.ts) checks the examples against the
 * schemas; this checks the schemas against the server.
 */

import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked by pointer and checked by assertions
type Node = any;
const DOC: Node = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));

function deref(node: Node): Node {
  let at = node;
  while (at && typeof at.$ref === 'string') {
    at = at.$ref
      .slice(2)
      .split('/')
      .reduce((n: Node, k: string) => n?.[k.replaceAll('~1', '/').replaceAll('~0', '~')], DOC);
  }
  return at;
}

/** The documented operation a request reaches: the template that matches, literal segments preferred. */
function operationFor(method: string, urlPath: string): { template: string; op: Node } {
  const pathOnly = urlPath.split('?')[0]!;
  const matches = Object.keys(DOC.paths).filter((template) => {
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    return new RegExp(`^${pattern}$`).test(pathOnly) && deref(DOC.paths[template])[method.toLowerCase()];
  });
  const literal = (t: string) => t.replace(/\{[^}]+\}/g, '').length;
  const template = matches.sort((a, b) => literal(b) - literal(a))[0];
  if (!template) throw new Error(`no documented operation for ${method} ${pathOnly}`);
  return { template, op: deref(DOC.paths[template])[method.toLowerCase()] };
}

const DETAIL = DOC.components.schemas.ErrorDetail;

/** Problems with one real error answer, as readable lines (empty when the document describes it). */
function undocumented(method: string, urlPath: string, status: number, body: Node): string[] {
  const { template, op } = operationFor(method, urlPath);
  const where = `${method} ${template} ${status}`;
  const response = deref(op.responses[String(status)]);
  if (!response) return [`${where}: status not documented`];
  const narrowed = deref(response.content['application/json'].schema).allOf.find((s: Node) => !s.$ref);
  const codes: string[] = narrowed.properties.error.properties.code.enum;
  const problems: string[] = [];
  if (!codes.includes(body.error.code)) problems.push(`${where}: code ${body.error.code} not in ${codes}`);
  for (const [member, value] of Object.entries(body.error)) {
    const declared = deref(DETAIL.properties[member]);
    if (!declared) {
      problems.push(`${where}: member "${member}" not in ErrorDetail`);
      continue;
    }
    const type = declared.type ?? 'string';
    const ok =
      type === 'integer'
        ? Number.isInteger(value)
        : type === 'array'
          ? Array.isArray(value)
          : typeof value === type && (!declared.enum || declared.enum.includes(value));
    if (!ok) problems.push(`${where}: "${member}" is ${JSON.stringify(value)}, not a documented ${type}`);
  }
  for (const member of DETAIL.required)
    if (!(member in body.error)) problems.push(`${where}: no "${member}"`);
  return problems;
}

let h: Harness;
let conn: ConnectionRecord;
let sheetId: string;

beforeAll(async () => {
  h = await startHarness();
  conn = await h.connect(await writePeopleWorkbook(h.dir));
  // Read the tab once first: the list does not wait long for a first parse.
  expect((await h.fetch(rowsPath(conn, 'People'))).status).toBe(200);
  const listed = await (await h.fetch('/v1/spreadsheets')).json();
  sheetId = listed.data[0].sheets[0].sheet_id;
});
afterAll(() => h.close());

interface Case {
  name: string;
  method: string;
  path: () => string;
  body?: unknown;
  headers?: Record<string, string>;
  auth?: () => string | null;
  status: number;
}

const json = { 'content-type': 'application/json' };
const batch = () => `/v1/sheets/${sheetId}/rows:batchUpdate`;

const CASES: Case[] = [
  { name: 'no key', method: 'GET', path: () => rowsPath(conn, 'People'), auth: () => null, status: 401 },
  { name: 'bad limit', method: 'GET', path: () => rowsPath(conn, 'People', '?limit=-1'), status: 400 },
  {
    name: 'unknown sort field',
    method: 'GET',
    path: () => rowsPath(conn, 'People', '?sort=Nope'),
    status: 400,
  },
  {
    name: 'malformed escape',
    method: 'GET',
    path: () => `/api/spreadsheets/${conn.userKey}/%ZZ`,
    status: 400,
  },
  { name: 'no such tab', method: 'GET', path: () => rowsPath(conn, 'Nope'), status: 404 },
  { name: 'no such row', method: 'GET', path: () => rowsPath(conn, 'People', '/999'), status: 404 },
  {
    name: 'If-Match mismatch',
    method: 'PUT',
    path: () => rowsPath(conn, 'People', '/1'),
    body: { Name: 'x' },
    headers: { 'if-match': '"stale"' },
    status: 412,
  },
  {
    name: 'not JSON',
    method: 'POST',
    path: () => rowsPath(conn, 'People'),
    body: 'Name=x',
    headers: { 'content-type': 'text/plain' },
    status: 415,
  },
  {
    name: 'batch too long',
    method: 'POST',
    path: batch,
    body: { mutations: Array.from({ length: 501 }, () => ({ op: 'delete', row: 1 })) },
    status: 400,
  },
  {
    name: 'batch row past the end',
    method: 'POST',
    path: batch,
    body: { mutations: [{ op: 'update', row: 999, values: { Name: 'x' } }] },
    status: 400,
  },
  {
    name: 'batch unknown field',
    method: 'POST',
    path: batch,
    body: { mutations: [{ op: 'append', values: { Nope: 'x' } }] },
    status: 400,
  },
  {
    name: 'webhook body with an unknown key',
    method: 'POST',
    path: () => '/v1/webhooks',
    body: { url: 'http://127.0.0.1:9/hook', secret: 'x' },
    status: 400,
  },
  { name: 'malformed escape on /v1', method: 'GET', path: () => '/v1/webhooks/%ZZ', status: 400 },
  { name: 'no such webhook', method: 'GET', path: () => '/v1/webhooks/wh_nope', status: 404 },
];

describe('real error answers match docs/openapi.json', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const init: RequestInit & { auth?: string | null } = {
        method: c.method,
        headers: { ...json, ...c.headers },
      };
      if (c.body !== undefined) init.body = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
      if (c.auth) init.auth = c.auth();
      const res = await h.fetch(c.path(), init);
      expect(res.status).toBe(c.status);
      expect(undocumented(c.method, c.path(), res.status, await res.json())).toEqual([]);
    });
  }

  it('a workbook that cannot be read: 502 with its reason', async () => {
    const file = path.join(h.dir, 'damaged.xlsx');
    await writeFile(file, 'not a zip package');
    const damaged = await h.connect(file);
    const res = await h.fetch(rowsPath(damaged, 'Sheet1'));
    const body = await res.json();
    expect(res.status).toBe(502);
    expect(body.error).toMatchObject({ code: 'upstream_error', reason: 'not_a_workbook' });
    expect(undocumented('GET', rowsPath(damaged, 'Sheet1'), res.status, body)).toEqual([]);
  });

  it('over the per-second limit: 429 with limit_type and retry_after', async () => {
    const key = await h.createKey({
      name: 'slow',
      scope: 'read',
      plan: 'enterprise',
      perSecond: 1,
      daily: 1000,
    });
    await h.fetch(rowsPath(conn, 'People'), { auth: key });
    const res = await h.fetch(rowsPath(conn, 'People'), { auth: key });
    const body = await res.json();
    expect(res.status).toBe(429);
    expect(body.error).toMatchObject({ limit_type: 'per_second' });
    expect(undocumented('GET', rowsPath(conn, 'People'), res.status, body)).toEqual([]);
  });

  it('a malformed escape on the admin surface: 400, documented', async () => {
    const res = await fetch(`${h.url}/admin/keys/%ZZ/usage`, {
      headers: { authorization: `Bearer ${h.context.adminToken}` },
    });
    const body = await res.json();
    expect(res.status).toBe(400);
    expect(undocumented('GET', '/admin/keys/%ZZ/usage', res.status, body)).toEqual([]);
  });
});
