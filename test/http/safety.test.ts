import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { fileHash, writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness, type TestResponse } from '../helpers/harness.ts';

let h: Harness;
let conn: ConnectionRecord;
let file: string;
beforeAll(async () => {
  h = await startHarness();
  file = await writePeopleWorkbook(h.dir);
  conn = await h.connect(file);
});
afterAll(() => h.close());

const errorOf = async (res: TestResponse) => {
  const body = await res.json();
  expect(body.error.request_id).toBe(res.headers.get('x-request-id'));
  expect(JSON.stringify(body)).not.toContain(h.dir);
  return { status: res.status, ...body.error };
};

/** Raw request so the Host header can be anything. */
function rawGet(pathName: string, host: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathName, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('authentication and authorization', () => {
  it('401 without a key, with WWW-Authenticate: Bearer', async () => {
    const res = await h.fetch(rowsPath(conn, 'People'), { auth: null });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await errorOf(res)).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('401 for an unknown, malformed or revoked key', async () => {
    expect((await errorOf(await h.fetch(rowsPath(conn, 'People'), { auth: 'sp_nope' }))).status).toBe(401);
    const basic = await h.fetch(rowsPath(conn, 'People'), {
      auth: null,
      headers: { authorization: 'Basic eDp5' },
    });
    expect((await errorOf(basic)).code).toBe('unauthorized');
    const { record, key } = await h.context.keys.create({ scope: 'read' });
    expect((await h.fetch(rowsPath(conn, 'People'), { auth: key })).status).toBe(200);
    await h.context.keys.revoke(record.id);
    expect((await errorOf(await h.fetch(rowsPath(conn, 'People'), { auth: key }))).status).toBe(401);
  });

  it('the userKey in the path alone is not enough', async () => {
    const res = await fetch(h.url + rowsPath(conn, 'People'));
    expect(res.status).toBe(401);
  });

  it('403 for a read key writing, and for a key limited to other connections', async () => {
    const readKey = await h.createKey({ scope: 'read' });
    const write = await h.fetch(rowsPath(conn, 'People'), {
      auth: readKey,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"Name":"x"}',
    });
    expect(await errorOf(write)).toMatchObject({ status: 403, code: 'forbidden' });
    const other = await h.connect(await writePeopleWorkbook(h.dir, 'other.xlsx'));
    const narrow = await h.createKey({ scope: 'read_write', connections: [other.spreadsheetId] });
    expect((await h.fetch(rowsPath(other, 'People'), { auth: narrow })).status).toBe(200);
    expect(await errorOf(await h.fetch(rowsPath(conn, 'People'), { auth: narrow }))).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
  });
});

describe('not found', () => {
  it('spreadsheet_not_found, sheet_not_found, not_found', async () => {
    expect(await errorOf(await h.fetch('/api/spreadsheets/nope/People'))).toMatchObject({
      status: 404,
      code: 'spreadsheet_not_found',
    });
    expect(await errorOf(await h.fetch(rowsPath(conn, 'Nope')))).toMatchObject({
      status: 404,
      code: 'sheet_not_found',
    });
    expect(await errorOf(await h.fetch('/api/nothing/here'))).toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });

  it('an encoded "/" stays inside the sheet name segment', async () => {
    const res = await h.fetch(rowsPath(conn, 'Sales/Q1'));
    expect(await errorOf(res)).toMatchObject({ status: 404, code: 'sheet_not_found', sheet: 'Sales/Q1' });
    const row = await h.fetch(rowsPath(conn, 'Sales/Q1', '/1'));
    expect(await errorOf(row)).toMatchObject({ status: 404, code: 'sheet_not_found', sheet: 'Sales/Q1' });
  });

  it('path traversal in a sheet name is just an unknown tab', async () => {
    for (const name of ['../../etc/passwd', '..\\..\\people.xlsx', '/etc/passwd', '%00']) {
      const res = await h.fetch(rowsPath(conn, name));
      expect(await errorOf(res)).toMatchObject({ status: 404, code: 'sheet_not_found' });
    }
  });
});

describe('bad bodies change nothing', () => {
  const send = (body: string | Uint8Array, headers: Record<string, string>, method = 'POST', row = '') =>
    h.fetch(rowsPath(conn, 'People', row), { method, headers, body });

  it('malformed JSON, wrong types, empty and non-JSON bodies, huge bodies', async () => {
    const before = await fileHash(file);
    const json = { 'content-type': 'application/json' };
    expect(await errorOf(await send('{"Name":', json))).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(await errorOf(await send('"just a string"', json))).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    expect(await errorOf(await send('{"Name":{"nested":1}}', json))).toMatchObject({
      status: 400,
      code: 'invalid_body',
      field: 'Name',
    });
    expect(await errorOf(await send('{"Age":[1,2]}', json, 'PUT', '/1'))).toMatchObject({
      code: 'invalid_body',
    });
    expect(await errorOf(await send('{}', json, 'PUT', '/1'))).toMatchObject({ code: 'invalid_body' });
    expect(await errorOf(await send('[]', json))).toMatchObject({ code: 'invalid_body' });
    const tooMany = JSON.stringify(Array.from({ length: 501 }, () => ({ Name: 'x' })));
    expect(await errorOf(await send(tooMany, json))).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(
      await errorOf(await send('Name=x', { 'content-type': 'application/x-www-form-urlencoded' })),
    ).toMatchObject({ status: 415, code: 'unsupported_media_type' });
    expect(await errorOf(await send('{"Name":"x"}', { 'content-type': 'text/plain' }))).toMatchObject({
      status: 415,
    });
    const huge = `{"Name":"${'x'.repeat(6 * 1024 * 1024)}"}`;
    expect(await errorOf(await send(huge, json))).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(await fileHash(file)).toBe(before);
  });

  it('a workbook held open by an office program is 423 locked and untouched', async () => {
    const lockFile = path.join(path.dirname(file), `.~lock.${path.basename(file)}#`);
    await writeFile(lockFile, 'someone,host,2026');
    const before = await fileHash(file);
    const res = await send('{"Name":"x"}', { 'content-type': 'application/json' });
    expect(await errorOf(res)).toMatchObject({ status: 423, code: 'locked' });
    expect(await fileHash(file)).toBe(before);
    // The 423 is not stored under the Idempotency-Key: once the program lets go, the same retry succeeds.
    const keyed = { 'content-type': 'application/json', 'idempotency-key': 'retry-after-unlock' };
    expect((await send('{"Name":"x"}', keyed)).status).toBe(423);
    const { rm } = await import('node:fs/promises');
    await rm(lockFile);
    expect((await send('{"Name":"x"}', keyed)).status).toBe(201);
    expect((await send('{"Name":"x"}', keyed)).headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('host guard and CORS', () => {
  it('refuses a foreign Host (DNS rebinding) and accepts loopback names', async () => {
    const evil = await rawGet('/openapi.json', 'evil.example:8787');
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body).error.code).toBe('forbidden');
    expect((await rawGet('/openapi.json', 'localhost:1234')).status).toBe(200);
    expect((await rawGet('/openapi.json', '[::1]:1234')).status).toBe(200);
    expect((await rawGet('/openapi.json', '127.0.0.1')).status).toBe(200);
  });

  it('answers CORS preflight without a key and exposes the headers docs/api.md lists', async () => {
    const pre = await fetch(h.url + rowsPath(conn, 'People'), {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const res = await h.fetch(rowsPath(conn, 'People'), { headers: { origin: 'https://app.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    // docs/api.md, "CORS": scripts on other origins may read exactly these (rate-limit and replay headers included).
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim());
    expect(exposed.sort()).toEqual(
      [
        'X-Request-Id',
        'X-Total-Count',
        'Link',
        'ETag',
        'Retry-After',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'X-RateLimit-Daily-Limit',
        'X-RateLimit-Daily-Remaining',
        'X-RateLimit-Daily-Reset',
        'RateLimit',
        'RateLimit-Policy',
        'Idempotent-Replayed',
        'X-Data-Age',
        'Warning',
      ].sort(),
    );
  });
});

describe('malformed requests', () => {
  it('a bad percent-escape in the path is 400 invalid_parameter (not invalid_body), on /api and /v1', async () => {
    for (const at of [
      `/api/spreadsheets/${conn.userKey}/%ZZ`,
      '/v1/sheets/%ZZ/rows',
      '/v1/webhooks/wh_%E0%A4%A',
    ]) {
      const error = await errorOf(await h.fetch(at));
      expect(error, at).toMatchObject({ status: 400, code: 'invalid_parameter' });
      // The path is refused before any route reads it, so no parameter is named (docs/api.md, "Error codes").
      expect(error.parameter, at).toBeUndefined();
    }
  });

  it('a declared body over 5 MB is refused at once, before it is sent', async () => {
    const { port } = new URL(h.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: rowsPath(conn, 'People'),
          headers: {
            authorization: `Bearer ${h.key}`,
            'content-type': 'application/json',
            'content-length': String(50 * 1024 * 1024),
          },
        },
        (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.write('{"Name":'); // and never the rest
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe('payload_too_large');
  });

  it('If-Match compares strongly: a weak tag never matches', async () => {
    const etag = (await h.fetch(rowsPath(conn, 'People', '/1'))).headers.get('etag')!;
    const res = await h.fetch(rowsPath(conn, 'People', '/1'), {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'if-match': `W/${etag}` },
      body: '{"Age":1}',
    });
    expect(await errorOf(res)).toMatchObject({ status: 412, code: 'precondition_failed' });
  });
});

describe('methods', () => {
  it('405 with Allow for a known path and another method', async () => {
    const res = await h.fetch(rowsPath(conn, 'People'), { method: 'DELETE' });
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await errorOf(res)).toMatchObject({ status: 405, code: 'method_not_allowed' });
    const one = await h.fetch(rowsPath(conn, 'People', '/1'), { method: 'POST' });
    expect(one.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH, PUT');
  });
});

describe('routing by the first path segment (http/segment-routers.ts)', () => {
  it('matches a path without regard to case, as Express does, and answers unknown segments 404', async () => {
    const lower = await h.fetch(`${rowsPath(conn, 'People')}?limit=2`);
    const upper = await h.fetch(`${rowsPath(conn, 'People').replace('/api/', '/API/')}?limit=2`);
    expect(lower.status).toBe(200);
    expect(upper.status).toBe(200);
    expect(await upper.json()).toEqual(await lower.json());
    expect((await h.fetch('/V1/spreadsheets')).status).toBe(200);
    expect((await h.fetch('/HEALTHZ')).status).toBe(200);
    for (const path of ['/nothing', '/apix/spreadsheets', '//api/spreadsheets', '/']) {
      const res = await h.fetch(path);
      if (path === '/') expect(res.status).not.toBe(404);
      else expect(await errorOf(res), path).toMatchObject({ status: 404, code: 'not_found' });
    }
    const admin = await h.fetch('/admin/keys', { method: 'PUT' });
    expect(admin.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});

describe('blank appends', () => {
  it('refuses a row with no non-empty value (it would not appear), changing nothing', async () => {
    const before = await fileHash(file);
    for (const body of ['{"Name":null}', '{"Name":""}', '[{"Name":"ok"},{"Age":null}]']) {
      const res = await h.fetch(rowsPath(conn, 'People'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(await errorOf(res), body).toMatchObject({ status: 400, code: 'invalid_body' });
    }
    expect(await fileHash(file)).toBe(before);
  });
});
