/**
 * How a request body's bytes are read (server/http/body-bytes.ts), through real HTTP: bodies of a megabyte or
 * more share one buffer kept between requests, so two such bodies in flight at once must each be read as
 * itself; compressed bodies are inflated as before (gzip, deflate, br), an unknown encoding is 415 and a
 * corrupt one 400, with nothing written; a body its client cuts short writes nothing and holds neither the
 * server nor its stop.
 */
import net from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { writeCsv } from '../helpers/fixtures.ts';
import { type Harness, rowsPath, startHarness } from '../helpers/harness.ts';

let h: Harness;
let conn: ConnectionRecord;
let path: string;

beforeAll(async () => {
  h = await startHarness();
  conn = await h.connect(await writeCsv(h.dir, 'notes.csv', 'Name,Note\nAnn,x\n'));
  path = rowsPath(conn, 'notes');
});
afterAll(() => h.close());

/** Every row's Name and Note, in order. */
async function rows(): Promise<{ Name: string; Note: string }[]> {
  const res = await h.fetch(`${path}?limit=1000`);
  expect(res.status).toBe(200);
  return res.json();
}

/** Opens a connection to `server` and sends the head of a POST to `target` with a JSON body of `length` bytes. */
function openPost(
  length: number,
  server: Harness = h,
  target = path,
): Promise<{ socket: net.Socket; answer: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1', () => {
      socket.write(
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.key}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`,
      );
      resolve({ socket, answer });
    });
    const chunks: Buffer[] = [];
    const answer = new Promise<string>((done) => {
      socket.on('data', (c) => chunks.push(c));
      socket.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
    });
    socket.on('error', reject);
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);

const write = (socket: net.Socket, bytes: Buffer) =>
  new Promise<void>((resolve, reject) => socket.write(bytes, (e) => (e ? reject(e) : resolve())));

describe('request bodies', () => {
  it('two bodies over a megabyte sent at once, their bytes interleaved, are each read as itself', async () => {
    const body = (tag: string) =>
      Buffer.from(
        JSON.stringify(
          Array.from({ length: 60 }, (_, i) => ({ Name: `${tag}${i}`, Note: `${tag}`.repeat(20_000) })),
        ),
      );
    const a = body('a');
    const b = body('b');
    expect(a.length).toBeGreaterThan(1024 * 1024);
    const first = await openPost(a.length);
    const second = await openPost(b.length);
    const step = 64 * 1024;
    for (let at = 0; at < Math.max(a.length, b.length); at += step) {
      if (at < a.length) await write(first.socket, a.subarray(at, at + step));
      if (at < b.length) await write(second.socket, b.subarray(at, at + step));
    }
    expect(statusOf(await first.answer)).toBe(201);
    expect(statusOf(await second.answer)).toBe(201);
    const written = await rows();
    for (const tag of ['a', 'b']) {
      const mine = written.filter((row) => row.Name.startsWith(tag) && row.Name !== 'Ann');
      expect(mine.map((row) => row.Name)).toEqual(Array.from({ length: 60 }, (_, i) => `${tag}${i}`));
      for (const row of mine) expect(row.Note).toBe(tag.repeat(20_000));
    }
  });

  it('a compressed body is inflated (gzip, deflate, br); an unknown or corrupt one writes nothing', async () => {
    const encoders = {
      gzip: promisify(zlib.gzip),
      deflate: promisify(zlib.deflate),
      br: promisify(zlib.brotliCompress),
    };
    for (const [encoding, encode] of Object.entries(encoders)) {
      const res = await h.fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: await encode(Buffer.from(JSON.stringify({ Name: `packed-${encoding}`, Note: 'z' }))),
      });
      expect(res.status, encoding).toBe(201);
    }
    const plain = await h.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': '' },
      body: JSON.stringify({ Name: 'packed-none', Note: 'z' }),
    });
    expect(plain.status, 'an empty Content-Encoding').toBe(201);
    const before = await rows();
    expect(before.map((row) => row.Name)).toEqual(
      expect.arrayContaining(['packed-gzip', 'packed-deflate', 'packed-br', 'packed-none']),
    );

    const unknown = await h.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'compress' },
      body: '{"Name":"never"}',
    });
    expect(unknown.status).toBe(415);
    const refusal = (await unknown.json()).error;
    expect(refusal.code).toBe('unsupported_media_type');
    expect(refusal.message).toBe(
      'Content-Encoding "compress" is not accepted; send the body uncompressed, or as gzip, deflate, br.',
    );

    const corrupt = await h.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: Buffer.from('not gzip at all'),
    });
    expect(corrupt.status).toBe(400);
    expect((await corrupt.json()).error.code).toBe('invalid_body');
    expect(await rows()).toEqual(before);
  });

  it('a body inflating past the limit is 413, and nothing is written', async () => {
    const before = await rows();
    // 6 MB of JSON text that compresses to a few kilobytes.
    const big = JSON.stringify([{ Name: 'huge', Note: 'q'.repeat(6 * 1024 * 1024) }]);
    const res = await h.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: await promisify(zlib.gzip)(Buffer.from(big)),
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('payload_too_large');
    expect(await rows()).toEqual(before);
  });

  it('a body its client cuts short writes nothing, and neither holds the server nor its stop', async () => {
    // A server of its own, so that its stop can be awaited here: the request cut short once held it for ever.
    const own = await startHarness();
    const notes = rowsPath(
      await own.connect(await writeCsv(own.dir, 'cut.csv', 'Name,Note\nAnn,x\n')),
      'cut',
    );
    const { socket, answer } = await openPost(2 * 1024 * 1024, own, notes);
    await write(socket, Buffer.from(`[{"Name":"cut","Note":"${'c'.repeat(200_000)}`));
    socket.end(); // the client's side closes with the body a tenth sent
    await answer;
    expect((await own.fetch('/healthz', { auth: null })).status).toBe(200);
    const listed = await own.fetch(`${notes}?limit=10`);
    expect((await listed.json()).map((row: { Name: string }) => row.Name)).toEqual(['Ann']);
    const stopped = await Promise.race([
      own.close().then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5_000)),
    ]);
    expect(stopped).toBe('stopped');
  });
});
