/**
 * The size of a request's head, through real HTTP: a URL over 16 KiB is 414 `uri_too_long` and a head over
 * 32 KiB 431 `headers_too_large`, both in the error envelope on any path; bytes that are not HTTP are a 400 in
 * the envelope; and a body a route left unread is never answered as if it were a second request.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_HEAD_BYTES, MAX_URL_BYTES } from '../../server/http/request-limits.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

let h: Harness;
let people: string;

beforeAll(async () => {
  h = await startHarness();
  const connection = await h.connect(await writePeopleWorkbook(h.dir));
  people = rowsPath(connection, 'People');
});
afterAll(async () => {
  await h.close();
});

/** Sends raw bytes and reads until the server closes the connection (or 5 s pass). */
function exchange(bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(h.url).port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    socket.setTimeout(5_000, () => socket.destroy());
    socket.write(bytes);
  });
}

function envelopeOrBody(answer: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  const head = answer.indexOf('\r\n\r\n');
  const rest = answer.slice(head + 4);
  // A chunked body: its one chunk's text.
  const text = /^[0-9a-f]+\r\n/i.test(rest) ? rest.split('\r\n')[1]! : rest;
  return { status, body: JSON.parse(text) };
}

function envelopeOf(answer: string): { status: number; error: Record<string, unknown> } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return { status, error: JSON.parse(body).error };
}

describe('the head of a request is bounded', () => {
  it('a URL at the limit is read; one byte over is 414 uri_too_long in the envelope', async () => {
    const base = `${people}?_=`;
    const atLimit = base + 'a'.repeat(MAX_URL_BYTES - base.length);
    expect(atLimit.length).toBe(MAX_URL_BYTES);
    const ok = await h.fetch(atLimit);
    expect(ok.status).toBe(200);

    const over = await h.fetch(`${atLimit}a`);
    expect(over.status).toBe(414);
    const body = await over.json();
    expect(body.error).toMatchObject({ code: 'uri_too_long', request_id: over.headers.get('x-request-id') });
    expect(body.error.message).toContain(String(MAX_URL_BYTES));
  });

  it('a URL over the limit is refused on any path, keyed or not, before the key is looked at', async () => {
    for (const path of ['/healthz', '/admin/keys', '/no/such/route', '/v1/spreadsheets']) {
      const res = await h.fetch(`${path}?q=${'%25'.repeat(MAX_URL_BYTES / 3)}`, { auth: null });
      expect(res.status, path).toBe(414);
      expect((await res.json()).error.code).toBe('uri_too_long');
    }
  });

  it('a head over 32 KiB is 431 headers_too_large in the envelope, and the connection is closed', async () => {
    const answer = await exchange(
      `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'x'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`,
    );
    const { status, error } = envelopeOf(answer);
    expect(status).toBe(431);
    expect(error).toMatchObject({ code: 'headers_too_large', request_id: expect.stringMatching(/^req_/) });
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('headers of a few KiB beside a 16 KiB URL are read', async () => {
    const url = `${people}?_=${'a'.repeat(MAX_URL_BYTES - people.length - 3)}`;
    const res = await h.fetch(url, {
      headers: { 'X-Request-Id': 'a'.repeat(64), 'X-Other': 'b'.repeat(4096) },
    });
    expect(res.status).toBe(200);
  });

  it('bytes that are not HTTP are a 400 in the envelope', async () => {
    const { status, error } = envelopeOf(await exchange('NOT HTTP AT ALL\r\n\r\n'));
    expect(status).toBe(400);
    expect(error.code).toBe('invalid_parameter');
  });

  it('a body left unread after an answer is not parsed as a second request and answered again', async () => {
    // The key is refused before the body is read; what follows it in the connection is not a request.
    const body = '\u0000garbage that is not a request line\r\n\r\n';
    const answer = await exchange(
      `POST ${people} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer nope\r\nContent-Type: text/plain\r\n` +
        `Content-Length: 3\r\nConnection: close\r\n\r\nabc${body}`,
    );
    expect(answer.match(/^HTTP\/1\.1 /gm)).toHaveLength(1);
    expect(envelopeOf(answer).status).toBe(401);
  });

  it('a body sent without a length after a DELETE: the DELETE is answered as done, alone, then the connection closes', async () => {
    // Node's own client sends a DELETE's body this way: the bytes follow a request that, by its head, has none.
    const before = await (await h.fetch(`${people}?limit=1`)).json();
    const answer = await exchange(
      `DELETE ${people}/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${h.key}\r\n\r\n{"not":"a request"}\r\n\r\n`,
    );
    expect(answer.match(/^HTTP\/1\.1 /gm)).toHaveLength(1);
    expect(envelopeOrBody(answer)).toEqual({ status: 200, body: { deleted: 1, row: 1 } });
    const after = await (await h.fetch(`${people}?limit=1`)).json();
    expect(after[0]).not.toEqual(before[0]);
  });

  it('a long answer reaches the client whole though a body without a length follows its request', async () => {
    // Node's client sends a GET's body unframed; the service reads it as a next request that is not HTTP, and must
    // still let the answer's bytes out before it closes (closing on unread bytes would reset the connection).
    const body = `{"a":"${'%41'.repeat(22_000)}"}`;
    for (let i = 0; i < 6; i++) {
      const { status, length, declared } = await new Promise<{
        status: number;
        length: number;
        declared: number;
      }>((resolve, reject) => {
        const req = http.request(`${h.url}/openapi.json`, {
          method: 'GET',
          agent: false,
          headers: { 'content-type': 'application/json' },
        });
        req.on('response', (res) => {
          let length = 0;
          res.on('data', (c: Buffer) => {
            length += c.length;
          });
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, length, declared: Number(res.headers['content-length']) }),
          );
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(body);
      });
      expect(status).toBe(200);
      expect(length).toBe(declared);
    }
  });
});
