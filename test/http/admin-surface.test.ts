/**
 * The admin surface, /ui included, answers only a loopback client naming a loopback Host, and only with the admin
 * token: a non-loopback address, an --allow-host tunnel name, a wrong token and a cross-site form post (a simple
 * request a browser sends without preflight: text/plain or urlencoded, no Authorization) are all refused, and
 * the form post changes nothing. Real server (startServer) on 0.0.0.0 so a non-loopback address can reach it.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/index.ts';

const TUNNEL = 'sheetport-demo.tunnel.example';

let dir: string;
let service: RunningServer;
let token: string;

/** This machine's first non-loopback IPv4 address (a LAN client as the server sees it), if it has one. */
function lanAddress(): string | null {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return null;
}

function send(
  options: {
    method?: string;
    path: string;
    host?: string;
    address?: string;
    headers?: Record<string, string>;
  },
  body?: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: options.address ?? '127.0.0.1',
        port: service.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { Host: options.host ?? `127.0.0.1:${service.port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-admin-surface-'));
  service = await startServer({
    dataDir: path.join(dir, 'data'),
    port: 0,
    host: '0.0.0.0',
    allowedHosts: [TUNNEL],
    log: () => {},
  });
  token = service.context.adminToken;
});

afterAll(async () => {
  await service?.stop();
  await rm(dir, { recursive: true, force: true });
});

const bearer = () => ({ Authorization: `Bearer ${token}` });

describe('the admin surface and /ui', () => {
  it('answer a loopback client with the token (the baseline the refusals are measured against)', async () => {
    expect((await send({ path: '/admin/keys', headers: bearer() })).status).toBe(200);
    const ui = await send({ path: '/ui/' });
    // 200 with the built page, or 503 "not built" in a checkout without renderer/dist: either way, served.
    expect([200, 503]).toContain(ui.status);
    expect(ui.headers['content-security-policy']).toContain("default-src 'self'");
    expect(ui.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(ui.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(ui.headers['x-frame-options']).toBe('DENY');
  });

  it('refuse a non-loopback Host name', async () => {
    for (const p of ['/admin/keys', '/ui/']) {
      const res = await send({ path: p, host: 'evil.example', headers: bearer() });
      expect(res.status, p).toBe(403);
    }
  });

  it('refuse an --allow-host tunnel name, though /v1 accepts it', async () => {
    expect((await send({ path: '/v1/spreadsheets', host: TUNNEL })).status).toBe(401);
    for (const p of ['/admin/keys', '/ui/', '/ui/index.html']) {
      const res = await send({ path: p, host: TUNNEL, headers: bearer() });
      expect(res.status, p).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe('forbidden');
    }
  });

  it('refuse a client on a non-loopback address even with a loopback Host and the token', async () => {
    const address = lanAddress();
    if (address === null) {
      // No LAN interface on this machine: nothing but loopback can connect, which is the point anyway.
      expect(address).toBeNull();
      return;
    }
    for (const p of ['/admin/keys', '/ui/']) {
      const res = await send({ path: p, address, host: `localhost:${service.port}`, headers: bearer() });
      expect(res.status, p).toBe(403);
    }
  });

  it('refuse a wrong token, an API key and no token', async () => {
    const apiKey = (await service.context.keys.create({ scope: 'read_write' })).key;
    for (const auth of [`Bearer ${token}x`, `Bearer ${apiKey}`, '']) {
      const res = await send({ path: '/admin/keys', headers: auth ? { Authorization: auth } : {} });
      expect(res.status, auth).toBe(401);
    }
  });

  it('refuse a cross-site form post (text/plain or urlencoded, no Authorization) and change nothing', async () => {
    const before = (await service.context.keys.list()).length;
    const forms: [string, string][] = [
      ['text/plain', '{"scope":"read_write"}'],
      ['application/x-www-form-urlencoded', 'scope=read_write&plan=pro'],
    ];
    for (const [type, body] of forms) {
      for (const p of ['/admin/keys', '/admin/webhooks', '/admin/events/token']) {
        const res = await send(
          { method: 'POST', path: p, headers: { 'Content-Type': type, Origin: 'https://evil.example' } },
          body,
        );
        expect(res.status, `${type} ${p}`).toBe(401);
        expect(res.headers['access-control-allow-origin'], p).toBeUndefined();
      }
    }
    expect((await service.context.keys.list()).length).toBe(before);
  });

  it('open the event stream only with a fresh one-use stream token', async () => {
    expect((await send({ path: '/admin/events' })).status).toBe(401);
    expect((await send({ path: '/admin/events?stream_token=made-up' })).status).toBe(401);
    const issued = await send({ method: 'POST', path: '/admin/events/token', headers: bearer() });
    expect(issued.status).toBe(201);
    const streamToken = JSON.parse(issued.body).stream_token as string;
    // A stream token opens nothing else.
    expect((await send({ path: `/admin/keys?stream_token=${streamToken}` })).status).toBe(401);
    const first = await new Promise<{ status: number; type: string | undefined; chunk: string }>(
      (resolve) => {
        const req = http.get(
          { host: '127.0.0.1', port: service.port, path: `/admin/events?stream_token=${streamToken}` },
          (res) => {
            res.once('data', (c: Buffer) => {
              resolve({
                status: res.statusCode ?? 0,
                type: res.headers['content-type'],
                chunk: c.toString(),
              });
              req.destroy();
            });
          },
        );
      },
    );
    expect(first.status).toBe(200);
    expect(first.type).toMatch(/^text\/event-stream/);
    // Spent: the same token does not open a second stream.
    expect((await send({ path: `/admin/events?stream_token=${streamToken}` })).status).toBe(401);
  });
});
