/**
 * docs/openapi.json must describe exactly the routes the app has: every (method, path) of the router is
 * documented, and nothing is documented that does not exist. The document must also hold together as
 * OpenAPI 3.1 (every $ref resolves, path templates match their parameters, error codes are real codes), and
 * `GET /openapi.json` must serve the file as it is.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { createServiceContext, type ServiceContext } from '../../server/context.ts';
import { type ErrorCode, statusOf } from '../../server/errors.ts';
import { MCP_PATH } from '../../server/http/mcp.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const DOC_URL = new URL('../../docs/openapi.json', import.meta.url);
const ERRORS_URL = new URL('../../server/errors.ts', import.meta.url);
const RAW = readFileSync(DOC_URL, 'utf8');
const DOC = JSON.parse(RAW) as JsonObject;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const PATH_ITEM_KEYS = new Set<string>([
  ...HTTP_METHODS,
  '$ref',
  'summary',
  'description',
  'servers',
  'parameters',
]);

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON pointer lookup (`#/components/schemas/Row`); undefined when it does not resolve. */
function resolvePointer(pointer: string): Json | undefined {
  if (!pointer.startsWith('#')) return undefined;
  let node: Json | undefined = DOC;
  for (const part of pointer.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = Object.hasOwn(node, key) ? node[key] : undefined;
    else return undefined;
  }
  return node;
}

/** Follows `$ref`s (local only) to the object they name. */
function deref(value: Json | undefined): JsonObject {
  let node = value;
  for (let hops = 0; isObject(node) && typeof node.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref loop at ${node.$ref}`);
    node = resolvePointer(node.$ref);
  }
  if (!isObject(node)) throw new Error('expected an object');
  return node;
}

function allRefs(
  node: Json,
  at: string,
  out: { at: string; ref: string }[] = [],
): { at: string; ref: string }[] {
  if (Array.isArray(node)) {
    node.forEach((v, i) => {
      allRefs(v, `${at}/${i}`, out);
    });
  } else if (isObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push({ at, ref: v });
      else allRefs(v, `${at}/${k}`, out);
    }
  }
  return out;
}

interface Operation {
  method: string;
  path: string;
  op: JsonObject;
  pathItem: JsonObject;
}

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [p, item] of Object.entries(DOC.paths as JsonObject)) {
    const pathItem = deref(item);
    for (const method of HTTP_METHODS) {
      if (isObject(pathItem[method])) out.push({ method, path: p, op: pathItem[method], pathItem });
    }
  }
  return out;
}

function parametersOf(o: Operation): JsonObject[] {
  const list = [...((o.pathItem.parameters as Json[]) ?? []), ...((o.op.parameters as Json[]) ?? [])];
  return list.map(deref);
}

/** The `ErrorCode` union as written in server/errors.ts. */
function errorCodesInSource(): string[] {
  const text = readFileSync(ERRORS_URL, 'utf8');
  const block = /export type ErrorCode =([^;]+);/.exec(text);
  if (!block) throw new Error('ErrorCode union not found in server/errors.ts');
  return [...block[1]!.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
}

/** The GETs an anonymous caller may make on a public-read connection (`isPublicRead` in server/http/auth.ts). */
const PUBLIC_READ_GETS = new Set([
  'GET /api/spreadsheets/{userKey}/{sheetName}',
  'GET /api/spreadsheets/{userKey}/{sheetName}/{row}',
  'GET /api/spreadsheets/{userKey}/{sheetName}/aggregate',
  'GET /v1/sheets/{sheetId}',
  'GET /v1/sheets/{sheetId}/aggregate',
  'GET /v1/sheets/{sheetId}/rows',
  'GET /v1/sheets/{sheetId}/rows/{row}',
]);

/** What needs no key at all: the base URL, this document, and the health probes (server/http/health.ts). */
const OPEN_PATHS = new Set(['/', '/openapi.json', '/healthz', '/readyz']);

interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/**
 * An Express 5 (path-to-regexp v8) route path as an OpenAPI template: `:param` -> `{param}`, and an escaped
 * literal colon (`rows\:batchUpdate`, a custom method) -> `:`. Any other path-to-regexp syntax (`*splat`,
 * `{optional}`, escapes) is left as it is, so it can never match a documented path by accident.
 */
function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/(\\:)|:([A-Za-z_][A-Za-z0-9_]*)/g, (_m, escaped?: string, name?: string) =>
    escaped ? ':' : `{${name}}`,
  );
}

/**
 * Express 5 (router 2.x): every layer with a `route` has its path and its methods. `/mcp` is in the route table
 * but is not an operation of this API: it is the MCP endpoint (JSON-RPC over Streamable HTTP), which docs/mcp.md
 * describes.
 */
function routeTable(routers: readonly Router[]): Set<string> {
  const table = new Set<string>();
  for (const layer of routers.flatMap((r) => r.stack) as unknown as RouteLayer[]) {
    if (!layer.route || layer.route.path === MCP_PATH) continue;
    const openApiPath = toOpenApiPath(layer.route.path);
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (on && method !== '_all') table.add(`${method.toUpperCase()} ${openApiPath}`);
    }
  }
  return table;
}

let dataDir: string;
let context: ServiceContext;
let routers: readonly Router[];
let app: ReturnType<typeof createApp>['app'];

beforeAll(() => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'sheetport-openapi-'));
  context = createServiceContext({ dataDir, log: () => {} });
  ({ app, routers } = createApp(context));
});

afterAll(async () => {
  await context?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('docs/openapi.json covers the route table', () => {
  it('converts Express route paths to OpenAPI templates', () => {
    expect(toOpenApiPath('/api/spreadsheets/:userKey/:sheetName/:row')).toBe(
      '/api/spreadsheets/{userKey}/{sheetName}/{row}',
    );
    expect(toOpenApiPath('/v1/sheets/:sheetId/rows\\:batchUpdate')).toBe(
      '/v1/sheets/{sheetId}/rows:batchUpdate',
    );
    // an unescaped colon after text is a parameter in path-to-regexp v8, and stays one here
    expect(toOpenApiPath('/v1/sheets/:sheetId/rows:verb')).toBe('/v1/sheets/{sheetId}/rows{verb}');
  });

  it('documents every route the app has, and only those', () => {
    const actual = routeTable(routers);
    const documented = new Set(operations().map((o) => `${o.method.toUpperCase()} ${o.path}`));
    expect(actual.size).toBeGreaterThan(0);
    const undocumented = [...actual].filter((r) => !documented.has(r)).sort();
    const phantom = [...documented].filter((r) => !actual.has(r)).sort();
    expect(undocumented, 'routes missing from docs/openapi.json').toEqual([]);
    expect(phantom, 'documented routes that do not exist').toEqual([]);
  });
});

describe('docs/openapi.json is structurally OpenAPI 3.1', () => {
  it('has the 3.1 top level', () => {
    expect(DOC.openapi).toMatch(/^3\.1\.\d+$/);
    const info = deref(DOC.info);
    expect(typeof info.title).toBe('string');
    expect(typeof info.version).toBe('string');
    expect(isObject(DOC.paths)).toBe(true);
    for (const [p, item] of Object.entries(DOC.paths as JsonObject)) {
      expect(p.startsWith('/'), p).toBe(true);
      // A colon is only allowed as a literal custom-method suffix after text (`.../rows:batchUpdate`).
      expect(
        p.replace(/(?<=[^/{}:]):[A-Za-z]+$/, ''),
        'OpenAPI templates use {param}, not :param',
      ).not.toMatch(/:/);
      for (const key of Object.keys(deref(item))) expect(PATH_ITEM_KEYS.has(key), `${p}: ${key}`).toBe(true);
    }
  });

  it('resolves every $ref', () => {
    const refs = allRefs(DOC, '#');
    expect(refs.length).toBeGreaterThan(0);
    const broken = refs
      .filter(({ ref }) => resolvePointer(ref) === undefined)
      .map((r) => `${r.at} -> ${r.ref}`);
    expect(broken).toEqual([]);
  });

  it('gives every operation a unique operationId and described responses', () => {
    const ids = new Set<string>();
    for (const o of operations()) {
      const where = `${o.method.toUpperCase()} ${o.path}`;
      const id = o.op.operationId;
      expect(typeof id, where).toBe('string');
      expect(ids.has(id as string), `duplicate operationId ${id}`).toBe(false);
      ids.add(id as string);
      const responses = deref(o.op.responses);
      expect(Object.keys(responses).length, where).toBeGreaterThan(0);
      for (const [status, response] of Object.entries(responses)) {
        expect(status, where).toMatch(/^([1-5]\d\d|[1-5]XX|default)$/);
        expect(typeof deref(response).description, `${where} ${status}`).toBe('string');
      }
    }
  });

  it('declares exactly the path parameters of each template', () => {
    for (const o of operations()) {
      const where = `${o.method.toUpperCase()} ${o.path}`;
      const inTemplate = [...o.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!).sort();
      const params = parametersOf(o);
      const declared = params.filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name as string).sort(), where).toEqual(inTemplate);
      for (const p of declared) expect(p.required, `${where} ${p.name}`).toBe(true);
      for (const p of params) {
        expect(['path', 'query', 'header', 'cookie'], `${where} ${p.name}`).toContain(p.in);
        expect(isObject(p.schema) || isObject(p.content), `${where} ${p.name}`).toBe(true);
      }
      const keys = params.map((p) => `${p.in}:${String(p.name).toLowerCase()}`);
      expect(new Set(keys).size, `${where}: duplicate parameters`).toBe(keys.length);
    }
  });

  it('only uses declared security schemes', () => {
    const schemes = deref(deref(DOC.components).securitySchemes);
    const requirements = [...((DOC.security as Json[]) ?? [])];
    for (const o of operations()) requirements.push(...((o.op.security as Json[]) ?? []));
    for (const requirement of requirements) {
      for (const name of Object.keys(deref(requirement)))
        expect(Object.hasOwn(schemes, name), name).toBe(true);
    }
    expect(deref(schemes.bearerAuth)).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('lists exactly the error codes of server/errors.ts, each under its real status', () => {
    const codes = errorCodesInSource();
    const documentedCodes = deref(deref(deref(DOC.components).schemas).ErrorCode).enum as string[];
    expect([...documentedCodes].sort()).toEqual([...codes].sort());

    for (const o of operations()) {
      for (const [status, response] of Object.entries(deref(o.op.responses))) {
        if (!/^[45]\d\d$/.test(status)) continue;
        const where = `${o.method.toUpperCase()} ${o.path} ${status}`;
        const media = deref(deref(deref(response).content)['application/json']);
        const schema = deref(media.schema);
        // allOf: [the Error envelope ($ref), { the codes this status can carry }]
        const narrowed = (schema.allOf as Json[]).find(
          (s) => isObject(s) && s.$ref === undefined,
        ) as JsonObject;
        const enumCodes = deref(deref(deref(narrowed?.properties).error).properties).code as JsonObject;
        const listed = enumCodes.enum as ErrorCode[];
        expect(listed.length, where).toBeGreaterThan(0);
        for (const code of listed) {
          expect(codes, where).toContain(code);
          expect(statusOf(code), `${where}: ${code}`).toBe(Number(status));
        }
        if (status === '401')
          expect(Object.keys(deref(deref(response).headers))).toContain('WWW-Authenticate');
      }
    }
  });

  it('keys every /api and /v1 operation, guards /admin with the admin token and leaves /, /openapi.json and the probes open', () => {
    expect(DOC.security).toEqual([{ bearerAuth: [] }]);
    const schemes = deref(deref(DOC.components).securitySchemes);
    expect(deref(schemes.adminToken)).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const o of operations()) {
      const where = `${o.method.toUpperCase()} ${o.path}`;
      const statuses = Object.keys(deref(o.op.responses));
      if (OPEN_PATHS.has(o.path)) expect(o.op.security, where).toEqual([]);
      else if (where === 'POST /admin/session') {
        // signing in: a one-use code in the body needs no bearer (server/http/admin-sign-in.ts)
        expect(o.op.security, where).toEqual([{ adminToken: [] }, {}]);
        expect(statuses, where).toEqual(expect.arrayContaining(['401', '403']));
      } else if (o.path.startsWith('/admin/')) {
        // loopback-only, admin token instead of an API key (server/http/admin.ts)
        expect(o.op.security, where).toEqual([{ adminToken: [] }]);
        expect(statuses, where).toEqual(expect.arrayContaining(['401', '403']));
      } else if (PUBLIC_READ_GETS.has(where)) {
        // a key, or no key at all on a public-read connection (isPublicRead in server/http/auth.ts)
        expect(o.op.security, where).toEqual([{ bearerAuth: [] }, {}]);
        expect(statuses, where).toContain('401');
      } else {
        expect(o.op.security, where).toBeUndefined();
        expect(statuses, where).toContain('401');
      }
    }
    const documented = new Set(operations().map((o) => `${o.method.toUpperCase()} ${o.path}`));
    for (const route of PUBLIC_READ_GETS) expect(documented.has(route), route).toBe(true);
  });
});

describe('GET /openapi.json', () => {
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function get(
    urlPath: string,
    host: string,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: urlPath, headers: { Host: host } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  }

  it('serves docs/openapi.json as it is, without an API key', async () => {
    const res = await get('/openapi.json', '127.0.0.1');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.body).toBe(RAW);
    expect(JSON.parse(res.body)).toEqual(DOC);
  });

  it('the base URL says what it is and where to go, without an API key, in the shape the document gives', async () => {
    const res = await get('/', '127.0.0.1');
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(body).toEqual({
      service: 'SheetPort',
      version: pkg.version,
      openapi: '/openapi.json',
      rows: '/api/spreadsheets/{userKey}/{sheetName}',
      spreadsheets: '/v1/spreadsheets',
      dashboard: '/ui/',
    });
    const raw = JSON.parse(RAW);
    const schema = raw.paths['/'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(body).sort());
  });

  it('refuses a non-loopback Host, as documented', async () => {
    const res = await get('/openapi.json', 'evil.example');
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code: 'forbidden' } });
  });
});
