/**
 * The route pipeline (server/http/route-pipeline.ts): every route is declared with its access and the resource
 * it acts on, and the key is checked against that resource before any handler runs. The route table of the real
 * app (createApp over a real service context) is walked, and each route is called through real HTTP.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express, { type Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { toPublicSheetId } from '../../server/connections/sheet-id.ts';
import { errorAnswer, errorHandler } from '../../server/http/errors.ts';
import { requestId } from '../../server/http/request-id.ts';
import { routePipeline } from '../../server/http/route-pipeline.ts';
import {
  KEY_ACCESS,
  RouteDeclarationError,
  type RouteEntry,
  RouteTable,
} from '../../server/http/route-table.ts';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, startHarness, type TestResponse } from '../helpers/harness.ts';

let h: Harness;
let conn: ConnectionRecord;
let other: ConnectionRecord;
let routes: readonly RouteEntry[];
let routers: readonly Router[];

beforeAll(async () => {
  h = await startHarness();
  conn = await h.connect(await writePeopleWorkbook(h.dir));
  other = await h.connect(await writePeopleWorkbook(h.dir, 'other.xlsx'));
  ({ routes, routers } = createApp(h.context));
});
afterAll(async () => {
  await h?.close();
});

const API = /^\/(api|v1)\//;
const label = (e: RouteEntry) => `${e.method.toUpperCase()} ${e.path}`;

/** The entry's path with real values: the People tab of `conn`, row 999 (none), made-up webhook ids. */
function urlOf(e: RouteEntry): string {
  const sheetId = toPublicSheetId(conn.spreadsheetId, '1');
  const id = e.resource === 'connection' ? conn.spreadsheetId : 'wh_none';
  return e.path
    .replace(':userKey', conn.userKey)
    .replace(':sheetName', 'People')
    .replace(':sheetId', sheetId)
    .replace(':deliveryId', 'dl_none')
    .replace(':id', id)
    .replace(':row', '999')
    .replace('\\:', ':');
}

/** The route called with `key`; writes get an empty object, which no write accepts, so nothing is written. */
function call(e: RouteEntry, key: string | null): Promise<TestResponse> {
  const body = e.method === 'get' || e.method === 'delete' ? undefined : '{}';
  return h.fetch(urlOf(e), {
    method: e.method.toUpperCase(),
    auth: key,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  });
}

describe('the route table', () => {
  const table = () => new RouteTable(routePipeline(h.context, { public: [], admin: [], sign_in: [] }));
  const handler = () => {};

  it('refuses to mount a route that declares a resource without an access that checks a key', () => {
    const routes = table();
    expect(() => routes.get('/v1/sheets/:sheetId', { resource: 'tab' } as never, handler)).toThrow(
      RouteDeclarationError,
    );
    for (const access of ['admin', 'public', 'sign_in', 'write']) {
      expect(
        () => routes.get('/v1/sheets/:sheetId', { access, resource: 'tab' } as never, handler),
        access,
      ).toThrow(RouteDeclarationError);
    }
    expect(routes.entries).toEqual([]);
  });

  it('refuses a key access declared without its resource, or a resource its path cannot name', () => {
    const routes = table();
    expect(() => routes.get('/v1/sheets/:sheetId', 'read' as never, handler)).toThrow(RouteDeclarationError);
    expect(() => routes.get('/v1/sheets/:sheetId', { access: 'read' } as never, handler)).toThrow(
      RouteDeclarationError,
    );
    expect(() => routes.get('/v1/things', { access: 'read', resource: 'tab' }, handler)).toThrow(
      RouteDeclarationError,
    );
    expect(() => routes.get('/v1/webhooks/:id', { access: 'read', resource: 'delivery' }, handler)).toThrow(
      RouteDeclarationError,
    );
    routes.get('/v1/sheets/:sheetId', { access: 'read', resource: 'tab' }, handler);
    expect(routes.entries).toEqual([
      { method: 'get', path: '/v1/sheets/:sheetId', access: 'read', resource: 'tab' },
    ]);
  });
});

describe('the routes of the real app', () => {
  it('are all declared in the table; every /api and /v1 route checks a key and resolves what its path names', () => {
    const declared = new Set(routes.map((e) => `${e.method} ${e.path}`));
    const layers = (
      routers.flatMap((r) => r.stack) as unknown as {
        route?: { path: string; methods: Record<string, boolean> };
      }[]
    )
      .filter((layer) => layer.route)
      .flatMap((layer) => Object.keys(layer.route!.methods).map((m) => `${m} ${layer.route!.path}`));
    expect(layers.length).toBeGreaterThan(40);
    for (const mounted of layers) expect(declared, mounted).toContain(mounted);
    for (const e of routes.filter((e) => API.test(e.path))) {
      expect(KEY_ACCESS, label(e)).toContain(e.access);
      if (/:(userKey|sheetName|sheetId|id|deliveryId)\b/.test(e.path))
        expect(e.resource, label(e)).not.toBe('none');
    }
  });

  it('each read_write route answers 403 forbidden to a read key', async () => {
    const readKey = await h.createKey({ scope: 'read' });
    const readWrite = routes.filter((e) => e.access === 'read_write');
    expect(readWrite.map((e) => e.resource)).toEqual(
      expect.arrayContaining(['tab', 'webhook', 'delivery', 'none']),
    );
    for (const e of readWrite) {
      const res = await call(e, readKey);
      expect(res.status, label(e)).toBe(403);
      const { error } = await res.json();
      expect(error.code, label(e)).toBe('forbidden');
      expect(error.message, label(e)).toMatch(/read-only/);
    }
  });

  it("honours a key's allow-list on every route that acts on a spreadsheet or a tab, /api and /v1 alike", async () => {
    const onSpreadsheet = routes.filter((e) => e.resource === 'tab' || e.resource === 'connection');
    expect(new Set(onSpreadsheet.map((e) => e.path.split('/')[1]))).toEqual(new Set(['api', 'v1']));
    for (const scope of ['read', 'read_write'] as const) {
      const elsewhere = await h.createKey({ scope, connections: [other.spreadsheetId] });
      const here = await h.createKey({ scope, connections: [conn.spreadsheetId] });
      for (const e of onSpreadsheet.filter((e) => scope === 'read_write' || e.access !== 'read_write')) {
        const refused = await call(e, elsewhere);
        expect(refused.status, `${scope} ${label(e)}`).toBe(403);
        expect((await refused.json()).error.message, label(e)).toMatch(
          /not allowed to reach this spreadsheet/,
        );
        // The same request by a key that reaches the spreadsheet gets past the pipeline to the handler.
        const admitted = await call(e, here);
        expect([401, 403], `${scope} ${label(e)}`).not.toContain(admitted.status);
        if (admitted.status >= 400) {
          const { error } = await admitted.json();
          expect(['spreadsheet_not_found', 'sheet_not_found'], `${label(e)} ${error.message}`).not.toContain(
            error.code,
          );
        }
      }
    }
  });

  it('opens the public_read routes without a key only for a public-read connection, /api and /v1 alike', async () => {
    const publicRead = routes.filter((e) => e.access === 'public_read');
    expect(new Set(publicRead.map((e) => e.path.split('/')[1]))).toEqual(new Set(['api', 'v1']));
    const anonymous = () =>
      Promise.all(
        publicRead.map(async (e) => {
          const res = await call(e, null);
          // Row 999 is past the end: the tab was found and read.
          const code = res.status === 200 ? 'ok' : (await res.json()).error.code;
          return [label(e), code] as const;
        }),
      );
    for (const [route, code] of await anonymous()) expect(code, route).toBe('unauthorized');
    await h.context.connections.setPublicRead(conn.spreadsheetId, true);
    try {
      for (const [route, code] of await anonymous()) expect(['ok', 'row_not_found'], route).toContain(code);
    } finally {
      await h.context.connections.setPublicRead(conn.spreadsheetId, false);
    }
  });
});

describe('the caller', () => {
  it('travels in the route context: res.locals keeps only the request id and, for the request log, the key id', async () => {
    const seen: { locals: string[]; key: string | null; tab: string }[] = [];
    const routes = new RouteTable(routePipeline(h.context, { public: [], admin: [], sign_in: [] }));
    routes.get(
      '/api/spreadsheets/:userKey/:sheetName/probe',
      { access: 'public_read', resource: 'tab' },
      (_req, res, { key, tab }) => {
        seen.push({ locals: Object.keys(res.locals).sort(), key: key?.id ?? null, tab: tab.name });
        res.json({});
      },
    );
    const app = express();
    app.use(requestId());
    app.use(routes.routers.dispatch);
    app.use(errorHandler(errorAnswer(() => {}, null)));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/spreadsheets/${conn.userKey}/People/probe`;
    const { record, key } = await h.context.keys.create({ name: 'probe', scope: 'read' });
    try {
      expect((await fetch(url, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      await h.context.connections.setPublicRead(conn.spreadsheetId, true);
      try {
        expect((await fetch(url)).status).toBe(200);
      } finally {
        await h.context.connections.setPublicRead(conn.spreadsheetId, false);
      }
      expect((await fetch(url)).status).toBe(401);
    } finally {
      server.close();
    }
    expect(seen).toEqual([
      { locals: ['loggedKeyId', 'requestId'], key: record.id, tab: 'People' },
      { locals: ['requestId'], key: null, tab: 'People' },
    ]);
  });
});
