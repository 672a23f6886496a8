/**
 * No API key or admin token is written anywhere in the data dir (CONTRACT 5), whatever header, query (plain or
 * percent-encoded) or path segment it arrives in: a real service (startServer, request and server logs on, SQLite
 * in the data dir), real HTTP, then, after the service stopped, every file under the data dir read byte by byte.
 */

import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SECRETS_FILE_NAME } from '../../server/secrets/file-provider.ts';
import { csvServices } from '../helpers/csv-services.ts';

const services = csvServices('sheetport-secrets-');
afterEach(services.stopAll);

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request, so the path and every header go out exactly as written (no URL normalising, no header rules). */
function request(
  base: string,
  method: string,
  rawPath: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: rawPath, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function everyFile(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await everyFile(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** The files under `dir` (SQLite, its WAL, logs, everything) whose bytes hold `needle`. */
async function filesHolding(dir: string, needle: string, except: (file: string) => boolean = () => false) {
  const holding: string[] = [];
  for (const file of await everyFile(dir)) {
    if (except(file)) continue;
    const bytes = await readFile(file);
    if (bytes.includes(needle) || bytes.includes(Buffer.from(needle, 'utf16le'))) holding.push(file);
  }
  return holding;
}

describe('secrets sent in odd places never reach the data dir', () => {
  it('a key in X-Request-Id, in queries (sp_ and sp%5F), in path segments and in other headers', async () => {
    const { dataDir, service, connection } = await services.start();
    const { key } = await service.context.keys.create({ name: 'caller', scope: 'read_write', plan: 'pro' });
    // Another real key, the one a careless client pastes everywhere.
    const { key: leaked } = await service.context.keys.create({
      name: 'pasted',
      scope: 'read_write',
      plan: 'pro',
    });
    const adminToken = service.context.adminToken;
    // The random part: found in the file whether the `sp_` prefix was written plainly or percent-encoded.
    const needle = leaked.slice(3);
    const encoded = `sp%5F${needle}`;
    const doubleEncoded = `sp%255F${needle}`;
    const auth = { authorization: `Bearer ${key}` };
    const rows = `/api/spreadsheets/${connection.userKey}/team`;

    const answers: Answer[] = [];
    const send = async (
      method: string,
      rawPath: string,
      headers: Record<string, string> = {},
      body?: string,
    ) => {
      const answer = await request(service.url, method, rawPath, { ...auth, ...headers }, body);
      answers.push(answer);
      return answer;
    };

    // As the request id: not taken as the id at all, so neither logged nor echoed.
    const asId = await send('GET', `${rows}?limit=1`, { 'x-request-id': leaked });
    expect(asId.status).toBe(200);
    expect(asId.headers['x-request-id']).toMatch(/^req_/);
    const adminAsId = await send('GET', '/admin/tunnel', {
      authorization: `Bearer ${adminToken}`,
      'x-request-id': adminToken,
    });
    expect(adminAsId.headers['x-request-id']).toMatch(/^req_/);
    // An ordinary id is still taken.
    expect(
      (await send('GET', `${rows}?limit=1`, { 'x-request-id': 'client-42' })).headers['x-request-id'],
    ).toBe('client-42');

    // In queries, under any name, plain, percent-encoded and encoded twice.
    for (const q of [
      `search=name:${leaked}`,
      `search=name:${encoded}`,
      `search=name%3A${doubleEncoded}`,
      `q=${encoded}`,
      `sort=${encoded}`,
      encoded,
      `api%5Fkey=${encoded}`,
      `code=${encoded}`,
      `x=${adminToken}`,
      `x=${encodeURIComponent(adminToken).replace('_', '%5F')}`,
    ]) {
      await send('GET', `${rows}?${q}`);
    }

    // In path segments, plain and encoded, on routes that exist and ones that do not.
    for (const p of [
      `/v1/webhooks/${leaked}`,
      `/v1/webhooks/${encoded}`,
      `/v1/webhooks/${leaked}/deliveries/${encoded}`,
      `/api/spreadsheets/${leaked}/team`,
      `/api/spreadsheets/${connection.userKey}/${encoded}`,
      `/v1/sheets/${leaked}/rows`,
      `/no/such/route/${leaked}`,
      `/no/such/route/${encoded}`,
      `/admin/webhooks/${adminToken}`,
    ]) {
      const answer = await send('GET', p);
      expect(answer.status, p).toBeGreaterThanOrEqual(400);
    }

    // In other headers, a write's Idempotency-Key among them (the idempotency store keeps request data).
    const written = await send(
      'POST',
      rows,
      {
        'content-type': 'application/json',
        'idempotency-key': leaked,
        'user-agent': `curl ${leaked}`,
        referer: `http://127.0.0.1/?k=${leaked}`,
        cookie: `session=${leaked}`,
        'x-forwarded-for': leaked,
        'x-api-key': leaked,
      },
      JSON.stringify({ name: 'Cy', age: 7 }),
    );
    expect(written.status).toBe(201);
    // The same Idempotency-Key again is still recognised as a repeat.
    const repeated = await send(
      'POST',
      rows,
      { 'content-type': 'application/json', 'idempotency-key': leaked },
      JSON.stringify({ name: 'Cy', age: 7 }),
    );
    expect(repeated.status).toBe(201);
    expect(repeated.headers['idempotent-replayed']).toBe('true');

    // Nor in a webhook URL, which would be stored (and sent on): refused, and nothing is registered.
    for (const url of [
      `https://hooks.example.com/in?token=${leaked}`,
      `https://hooks.example.com/${encoded}`,
    ]) {
      const refused = await send(
        'POST',
        '/v1/webhooks',
        { 'content-type': 'application/json' },
        JSON.stringify({ url, spreadsheet_id: connection.spreadsheetId, sheet_name: 'team' }),
      );
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.body).error).toMatchObject({ code: 'invalid_body', field: 'url' });
    }
    expect(await service.context.webhooks.list()).toEqual([]);

    // No answer echoes the key back either (error messages name paths and parameters).
    for (const answer of answers) {
      expect(answer.body).not.toContain(needle);
      expect(answer.body).not.toContain(adminToken.slice(4));
    }

    // A dashboard sign-in code and the session it opens, pasted where they do not belong.
    const admin = { authorization: `Bearer ${adminToken}` };
    const minted = await request(service.url, 'POST', '/admin/sign-in-codes', admin);
    const code = JSON.parse(minted.body).code as string;
    await send('GET', `${rows}?x=${code}`, { 'x-request-id': code });
    const opened = await request(
      service.url,
      'POST',
      '/admin/session',
      { 'content-type': 'application/json' },
      JSON.stringify({ code }),
    );
    const session = JSON.parse(opened.body).session as string;
    expect(session).toMatch(/^sps_/);
    answers.push(
      await request(service.url, 'GET', `/admin/tunnel?y=${session}`, { authorization: `Bearer ${session}` }),
    );

    // The request log, as /admin/requests shows it.
    await expect
      .poll(async () => {
        const res = await request(service.url, 'GET', '/admin/requests?limit=500', {
          authorization: `Bearer ${adminToken}`,
        });
        return JSON.parse(res.body).data.length;
      })
      .toBeGreaterThanOrEqual(answers.length);
    const shown = await request(service.url, 'GET', '/admin/requests?limit=500', {
      authorization: `Bearer ${adminToken}`,
    });
    expect(shown.body).toContain('[redacted]');
    expect(shown.body).not.toContain(needle);
    expect(shown.body).not.toContain(adminToken.slice(4));

    await service.stop();
    const files = await everyFile(dataDir);
    expect(files.some((f) => f.includes(`${path.sep}logs${path.sep}`))).toBe(true);
    expect(files.some((f) => f.endsWith('.db') || f.endsWith('.sqlite'))).toBe(true);
    expect(await filesHolding(dataDir, needle)).toEqual([]);
    expect(await filesHolding(dataDir, code.slice(4))).toEqual([]);
    expect(await filesHolding(dataDir, session.slice(4))).toEqual([]);
    // The admin token lives in the secrets provider, which may be a file in the data dir by design; nowhere else.
    expect(
      await filesHolding(dataDir, adminToken.slice(4), (f) => path.basename(f) === SECRETS_FILE_NAME),
    ).toEqual([]);
  });
});
