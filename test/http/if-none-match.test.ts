/**
 * `If-None-Match: *` over real HTTP: only an answer that carries an ETag (one row's GET) may be 304 Not Modified.
 * Express's freshness check took `*` as a match for every GET, so `/healthz`, listings and `/admin` answered 304
 * with no body to any client that sent it. Sent with Node's http client: fetch adds `Cache-Control: no-cache` to a
 * conditional request, which hid the fault.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

let h: Harness;
let connection: ConnectionRecord;
beforeAll(async () => {
  h = await startHarness();
  connection = (await h.connectBook(await writePeopleWorkbook(h.dir))).connection;
});
afterAll(async () => {
  await h?.close();
});

const sheetId = () => `${connection.spreadsheetId}~1`;

/** A request as a plain HTTP client sends it: only the headers given (and the key unless `auth` says otherwise). */
function send(
  path: string,
  options: { method?: string; headers?: Record<string, string>; auth?: string | null } = {},
): Promise<{ status: number; etag: string | undefined; body: string }> {
  const bearer = options.auth === undefined ? h.key : options.auth;
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${h.url}${path}`,
      {
        method: options.method ?? 'GET',
        headers: { ...options.headers, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('If-None-Match: *', () => {
  it('is 200 with the whole answer on every GET without an ETag', async () => {
    const admin = { auth: h.context.adminToken };
    const paths: [string, { auth?: string | null }][] = [
      ['/healthz', {}],
      ['/readyz', {}],
      ['/openapi.json', {}],
      [rowsPath(connection, 'People'), {}],
      [`${rowsPath(connection, 'People')}?format=csv`, {}],
      [`/v1/sheets/${sheetId()}/rows`, {}],
      [`/v1/sheets/${sheetId()}`, {}],
      ['/v1/spreadsheets', {}],
      ['/v1/webhooks', {}],
      ['/admin/keys', admin],
      ['/admin/connections', admin],
    ];
    for (const [path, init] of paths) {
      for (const method of ['GET', 'HEAD']) {
        const res = await send(path, { method, headers: { 'if-none-match': '*' }, ...init });
        expect(res.status, `${method} ${path}`).toBe(200);
        expect(res.etag, path).toBeUndefined();
        if (method === 'GET') expect(res.body.length, path).toBeGreaterThan(0);
      }
    }
  });

  it("is 304 on one row's GET, as its own ETag is, by name and by sheet_id", async () => {
    for (const path of [rowsPath(connection, 'People', '/1'), `/v1/sheets/${sheetId()}/rows/1`]) {
      const first = await send(path);
      expect(first.status).toBe(200);
      const etag = first.etag;
      expect(etag).toMatch(/^"/);
      for (const condition of ['*', etag!, `"other", ${etag}`]) {
        const res = await send(path, { headers: { 'if-none-match': condition } });
        expect(res.status, `${path} ${condition}`).toBe(304);
        expect(res.etag).toBe(etag);
        expect(res.body).toBe('');
      }
      const other = await send(path, { headers: { 'if-none-match': '"other"' } });
      expect(other.status).toBe(200);
      expect(JSON.parse(other.body)).toMatchObject({ Name: 'Ann' });
    }
  });
});
