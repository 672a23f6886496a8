import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { generateSecret } from '../../server/webhooks/secret.ts';
import { deliver, EXCERPT_BYTES } from '../../server/webhooks/sender.ts';
import { signedHeaders } from '../../server/webhooks/signer.ts';
import { safeLookup } from '../../server/webhooks/target-safety.ts';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

interface Receiver {
  url: string;
  port: number;
  received: Received[];
  connections: number;
  close(): Promise<void>;
}

const open: Receiver[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

/** A real node:http receiver on an ephemeral 127.0.0.1 port; `handler` runs once the body has been read. */
async function receiver(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void,
  host = '127.0.0.1',
) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  const r: Receiver = {
    url: '',
    port: 0,
    received,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => {
    r.connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  r.port = (server.address() as AddressInfo).port;
  r.url = `http://${host.includes(':') ? `[${host}]` : host}:${r.port}`;
  open.push(r);
  return r;
}

const body = Buffer.from('{"webhook_id":"wh_1","event":"row.updated","changed_rows":[]}', 'utf8');
const headers = { 'Content-Type': 'application/json', 'X-Service-Event': 'row.updated' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deliver against real loopback receivers', () => {
  it('200 with a body: ok, status, excerpt; the exact bytes and headers arrive', async () => {
    const r = await receiver((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('thanks'),
    );
    const result = await deliver({ url: `${r.url}/hook?x=1`, body, headers, allowLan: false });
    expect(result).toMatchObject({ ok: true, status: 200, error: null, responseExcerpt: 'thanks' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hook?x=1');
    expect(got.body.equals(body)).toBe(true);
    expect(got.headers['content-length']).toBe(String(body.length));
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-service-event']).toBe('row.updated');
  });

  it('any 2xx succeeds (204 without a body)', async () => {
    const r = await receiver((_req, res) => res.writeHead(204).end());
    expect(await deliver({ url: r.url, body, headers, allowLan: false })).toMatchObject({
      ok: true,
      status: 204,
      error: null,
      responseExcerpt: '',
    });
  });

  it('500: not ok, with the status and the response excerpt', async () => {
    const r = await receiver((_req, res) => res.writeHead(500).end('boom'));
    const result = await deliver({ url: r.url, body, headers, allowLan: false });
    expect(result).toMatchObject({ ok: false, status: 500, error: 'HTTP 500', responseExcerpt: 'boom' });
  });

  it('a receiver that never answers: timeout after about timeoutMs', async () => {
    const r = await receiver(() => {});
    const result = await deliver({ url: r.url, body, headers, allowLan: false, timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1000);
  });

  it('headers sent, then the body hangs: timeout (the limit covers headers AND body)', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
    });
    const result = await deliver({ url: r.url, body, headers, allowLan: false, timeoutMs: 300 });
    expect(result.ok).toBe(false);
    expect(result.error).toBe('timeout');
    expect(result.status).toBe(200);
    expect(result.responseExcerpt).toBe('partial');
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(1000);
  });

  it('a slow but in-time receiver succeeds', async () => {
    const r = await receiver((_req, res) => {
      setTimeout(() => res.writeHead(200).end('late'), 100);
    });
    expect(await deliver({ url: r.url, body, headers, allowLan: false, timeoutMs: 1000 })).toMatchObject({
      ok: true,
      responseExcerpt: 'late',
    });
  });

  it('302: not followed, recorded as a failure with its status; the target receives nothing', async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end('should not be reached'));
    const r = await receiver((_req, res) =>
      res.writeHead(302, { Location: `${target.url}/elsewhere` }).end(),
    );
    const result = await deliver({ url: r.url, body, headers, allowLan: false });
    expect(result.ok).toBe(false);
    expect(result.status).toBe(302);
    expect(result.error).toMatch(/^HTTP 302/);
    await sleep(100);
    expect(target.received).toHaveLength(0);
    expect(target.connections).toBe(0);
  });

  it('connection reset by the receiver: an ECONNRESET failure', async () => {
    const r = await receiver((req) => req.socket.destroy());
    const result = await deliver({ url: r.url, body, headers, allowLan: false });
    expect(result.ok).toBe(false);
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/ECONNRESET|EPIPE/);
  });

  it('reset in the middle of the response body: a failure keeping the status', async () => {
    const r = await receiver((req, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('only part', () => setTimeout(() => req.socket.destroy(), 20));
    });
    const result = await deliver({ url: r.url, body, headers, allowLan: false });
    expect(result.ok).toBe(false);
    expect(result.status).toBe(200);
    expect(result.error).toMatch(/ECONNRESET/);
  });

  it('refused port: ECONNREFUSED', async () => {
    const r = await receiver(() => {});
    const url = r.url;
    await r.close();
    open.splice(open.indexOf(r), 1);
    const result = await deliver({ url, body, headers, allowLan: false });
    expect(result).toMatchObject({ ok: false, status: null, error: 'ECONNREFUSED' });
  });

  it('a 10 KB response: the excerpt is the first 4096 bytes, and the delivery still succeeds', async () => {
    const big = 'abcdefghij'.repeat(1024);
    const r = await receiver((_req, res) => res.writeHead(200).end(big));
    const result = await deliver({ url: r.url, body, headers, allowLan: false });
    expect(result.ok).toBe(true);
    expect(EXCERPT_BYTES).toBe(4096);
    expect(Buffer.byteLength(result.responseExcerpt)).toBe(4096);
    expect(result.responseExcerpt).toBe(big.slice(0, 4096));
  });

  it('an excerpt cut inside a multi-byte character drops the partial character', async () => {
    const r = await receiver((_req, res) => res.writeHead(500).end('€'.repeat(3000)));
    const result = await deliver({ url: r.url, body, headers, allowLan: false });
    expect(result.status).toBe(500);
    expect(result.responseExcerpt).toBe('€'.repeat(1365));
    expect(result.responseExcerpt).not.toContain('\uFFFD');
  });

  it('a huge endless 2xx stream does not hold the attempt: it stops at the excerpt', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      const chunk = 'x'.repeat(1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) {}
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const result = await deliver({ url: r.url, body, headers, allowLan: false, timeoutMs: 2000 });
    expect(result.ok).toBe(true);
    expect(result.durationMs).toBeLessThan(1500);
    expect(result.responseExcerpt).toHaveLength(4096);
  });

  it('uses a fresh connection per attempt (no keep-alive reuse)', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end('ok'));
    await deliver({ url: r.url, body, headers, allowLan: false });
    await deliver({ url: r.url, body, headers, allowLan: false });
    expect(r.received).toHaveLength(2);
    expect(r.connections).toBe(2);
  });

  it('a receiver verifying both signatures accepts a delivery built with signedHeaders', async () => {
    const secret = generateSecret();
    const verdicts: string[] = [];
    const r = await receiver((req, res, raw) => {
      // 1. X-Service-Signature with node:crypto, in constant time, over the raw bytes.
      const given = Buffer.from(String(req.headers['x-service-signature'] ?? ''), 'hex');
      const expected = createHmac('sha256', secret).update(raw).digest();
      const hexOk = given.length === expected.length && timingSafeEqual(given, expected);
      // 2. Standard Webhooks headers with the standardwebhooks package.
      let standardOk = true;
      try {
        new Webhook(secret).verify(raw, req.headers as Record<string, string>);
      } catch {
        standardOk = false;
      }
      verdicts.push(`${hexOk}/${standardOk}`);
      res.writeHead(hexOk && standardOk ? 200 : 401).end(hexOk && standardOk ? 'verified' : 'rejected');
    });
    const timestampSeconds = Math.floor(Date.now() / 1000);
    const signed = signedHeaders({
      secret,
      deliveryId: 'dlv_42',
      event: 'row.updated',
      timestampSeconds,
      body,
    });
    const good = await deliver({ url: r.url, body, headers: signed, allowLan: false });
    expect(good).toMatchObject({ ok: true, status: 200, responseExcerpt: 'verified' });
    expect(r.received[0]!.headers['user-agent']).toMatch(/^SheetPort-Webhooks\/\d+\.\d+\.\d+/);
    expect(r.received[0]!.headers['webhook-id']).toBe('dlv_42');
    expect(r.received[0]!.headers['x-service-delivery']).toBe('dlv_42');

    // The same headers with other bytes (or another secret) are rejected by the receiver.
    const tampered = Buffer.from(body.toString('utf8').replace('row.updated', 'row.deleted'));
    const bad = await deliver({ url: r.url, body: tampered, headers: signed, allowLan: false });
    expect(bad).toMatchObject({ ok: false, status: 401 });
    const otherSecret = signedHeaders({
      secret: generateSecret(),
      deliveryId: 'dlv_43',
      event: 'row.updated',
      timestampSeconds,
      body,
    });
    expect(await deliver({ url: r.url, body, headers: otherSecret, allowLan: false })).toMatchObject({
      ok: false,
    });
    expect(verdicts).toEqual(['true/true', 'false/false', 'false/false']);
  });
});

describe('deliver refuses targets the policy forbids, without connecting', () => {
  it.each([
    ['https://169.254.169.254/latest/meta-data/', 'address not allowed: 169.254.169.254'],
    ['http://169.254.169.254/', 'address not allowed: 169.254.169.254'],
    ['https://0xa9fea9fe/', 'address not allowed: 169.254.169.254'],
    ['https://[::ffff:169.254.169.254]/', 'address not allowed: ::ffff:a9fe:a9fe'],
    ['https://[fd00:ec2::254]/', 'address not allowed: fd00:ec2::254'],
    ['https://10.1.2.3/', 'address not allowed: 10.1.2.3'],
    ['http://8.8.8.8/', 'address not allowed: 8.8.8.8'],
  ])('%s', async (url, error) => {
    const result = await deliver({ url, body, headers, allowLan: false, timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, status: null, error });
    expect(result.durationMs).toBeLessThan(100);
  });

  // Whether a LAN address is let through is decided by the lookup the sender connects through; it is checked
  // here without connecting anywhere (no traffic may go to a private-range address from this machine).
  it('a name resolving to a LAN address is let through only when allowLan is set', async () => {
    const lanLookup: LookupFunction = (_h, _o, cb) => cb(null, [{ address: '10.1.2.3', family: 4 }]);
    const resolve = (allowLan: boolean) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((done) =>
        safeLookup({ allowLan, loopbackOnly: false, lookup: lanLookup })('lan.example', {}, (err, address) =>
          done({ err, address }),
        ),
      );
    const refused = await resolve(false);
    expect(refused.err?.code).toBe('EADDRNOTALLOWED');
    const allowed = await resolve(true);
    expect(allowed.err).toBeNull();
    expect(allowed.address).toBe('10.1.2.3');
    const refusedSend = await deliver({
      url: 'https://lan.example/',
      body,
      headers,
      allowLan: false,
      lookup: lanLookup,
    });
    expect(refusedSend).toMatchObject({ ok: false, status: null, error: 'address not allowed: 10.1.2.3' });
  });

  it('checks the resolved address when connecting: localhost resolving to the metadata address is refused', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end());
    const calls: string[] = [];
    const evil: LookupFunction = (hostname, _o, cb) => {
      calls.push(hostname);
      cb(null, [{ address: '169.254.169.254', family: 4 }]);
    };
    const result = await deliver({
      url: `http://localhost:${r.port}/`,
      body,
      headers,
      allowLan: true,
      lookup: evil,
    });
    expect(calls).toEqual(['localhost']);
    expect(result).toMatchObject({ ok: false, status: null, error: 'address not allowed: 169.254.169.254' });
    expect(r.connections).toBe(0);
  });

  it('the injected resolver is used for real connections when its answer is allowed', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end('via lookup'));
    const calls: string[] = [];
    const toLoopback: LookupFunction = (hostname, _o, cb) => {
      calls.push(hostname);
      cb(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    const result = await deliver({
      url: `http://localhost:${r.port}/`,
      body,
      headers,
      allowLan: false,
      lookup: toLoopback,
    });
    expect(calls).toEqual(['localhost']);
    expect(result).toMatchObject({ ok: true, status: 200, responseExcerpt: 'via lookup' });
  });

  it('DNS failure: a short error', async () => {
    const nx: LookupFunction = (hostname, _o, cb) =>
      cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    const result = await deliver({
      url: 'https://nowhere.invalid/',
      body,
      headers,
      allowLan: false,
      lookup: nx,
    });
    expect(result).toMatchObject({ ok: false, status: null, error: 'ENOTFOUND' });
  });

  it('TLS failure (https to a plain-http receiver): a short error, not a throw', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end());
    const result = await deliver({ url: `https://127.0.0.1:${r.port}/`, body, headers, allowLan: false });
    expect(result.ok).toBe(false);
    expect(result.status).toBeNull();
    expect(result.error).toMatch(/^(EPROTO|ERR_SSL_[A-Z_]+|ECONNRESET)$/);
    expect(result.error).not.toBe('timeout');
  });

  it('never throws: bad URL, credentials, unsupported scheme, invalid header', async () => {
    expect(await deliver({ url: 'not a url', body, headers, allowLan: false })).toMatchObject({
      ok: false,
      error: 'invalid url',
    });
    expect(
      (await deliver({ url: 'https://u:p@example.com/', body, headers, allowLan: false })).error,
    ).toMatch(/^url refused: .*credentials/);
    expect((await deliver({ url: 'ftp://example.com/', body, headers, allowLan: false })).error).toMatch(
      /^url refused/,
    );
    const r = await receiver((_req, res) => res.writeHead(200).end());
    const result = await deliver({ url: r.url, body, headers: { 'X-Bad': 'a\nb' }, allowLan: false });
    expect(result.ok).toBe(false);
    expect(result.error).toBe('ERR_INVALID_CHAR');
    expect(r.connections).toBe(0);
  });
});
