/**
 * `/healthz` and `/readyz` over real HTTP on the service `sheetport serve` runs (startServer): public, answered
 * whatever the Host (a load balancer's probe), never counted against a key, kept out of the request log, and
 * `/readyz` answering 503 in the error envelope once the database underneath is gone.
 */

import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOGS_DIR } from '../../server/logs/request-log.ts';
import { csvServices } from '../helpers/csv-services.ts';
import { sqliteOf } from '../helpers/sqlite-of.ts';

const services = csvServices('sheetport-health-');
afterEach(services.stopAll);

/** A GET with the Host header a proxy or probe would send (fetch cannot set it). */
function getWithHost(
  url: string,
  urlPath: string,
  host: string,
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, headers: { Host: host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

describe('health probes', () => {
  it('/healthz answers 200 {"status":"ok"} and /readyz 200 on a working store, without a key', async () => {
    const { service } = await services.start();
    const live = await fetch(`${service.url}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    expect(live.headers.get('cache-control')).toBe('no-store');
    expect(live.headers.get('x-request-id')).toBeTruthy();
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', loading: 0 });
    expect(ready.headers.get('cache-control')).toBe('no-store');
  });

  it('answers a load balancer that names the instance by its address, where other routes keep the Host guard', async () => {
    const { service } = await services.start();
    for (const host of ['10.0.3.7:8787', 'sheetport-2:8787', 'evil.example']) {
      const live = await getWithHost(service.url, '/healthz', host);
      expect(live.status, host).toBe(200);
      expect(JSON.parse(live.body)).toEqual({ status: 'ok' });
      expect((await getWithHost(service.url, '/readyz', host)).status, host).toBe(200);
      const other = await getWithHost(service.url, '/openapi.json', host);
      expect(other.status, host).toBe(403);
      expect(JSON.parse(other.body)).toMatchObject({ error: { code: 'forbidden' } });
    }
  });

  it('never counts against a key: a Free key probing 30 times still has its whole second', async () => {
    const { service } = await services.start();
    const { key } = await service.context.keys.create({ name: 'probe', scope: 'read', plan: 'free' });
    const auth = { authorization: `Bearer ${key}` };
    for (let i = 0; i < 15; i++) {
      for (const probe of ['/healthz', '/readyz']) {
        const res = await fetch(service.url + probe, { headers: auth });
        expect(res.status, probe).toBe(200);
        expect(res.headers.get('x-ratelimit-limit'), probe).toBeNull();
      }
    }
    // A key that does not exist is not looked at either.
    const unknownKey = await fetch(`${service.url}/readyz`, { headers: { authorization: 'Bearer sp_nope' } });
    expect(unknownKey.status).toBe(200);
    const keyed = await fetch(`${service.url}/v1/spreadsheets`, { headers: auth });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('x-ratelimit-limit')).toBe('10');
    expect(keyed.headers.get('x-ratelimit-remaining')).toBe('9');
  });

  it('keeps the probes out of the request log, where the other requests are', async () => {
    const { service, dataDir } = await services.start();
    await fetch(`${service.url}/healthz`);
    await fetch(`${service.url}/readyz`);
    await fetch(`${service.url}/openapi.json`);
    await service.stop();
    const dir = path.join(dataDir, LOGS_DIR);
    let text = '';
    for (const f of (await readdir(dir)).filter((n) => n.endsWith('.log')))
      text += await readFile(path.join(dir, f), 'utf8');
    const paths = text
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { path: string }).path);
    expect(paths).toEqual(['/openapi.json']);
  });

  it('/readyz answers 503 in the error envelope once the database is closed underneath; /healthz stays 200', async () => {
    const { service } = await services.start();
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    sqliteOf(service.context).close();
    const res = await fetch(`${service.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    const body = (await res.json()) as { error: Record<string, unknown> };
    expect(body.error).toEqual({
      code: 'upstream_unavailable',
      message: 'Not ready: the SQLite database is closed',
      request_id: res.headers.get('x-request-id'),
      retry_after: 5,
    });
    const live = await fetch(`${service.url}/healthz`);
    expect(live.status).toBe(200);
  });
});

describe('a readiness check that hangs', () => {
  it('is "not ready" after 3 s, not a probe left waiting', async () => {
    const { service } = await services.start();
    // A stand-in for a database behind a dead network path (a check that never settles), which no store on
    // this machine can be made to be: the app reads `ready` from the context on each probe.
    service.context.ready = () => new Promise<void>(() => {});
    const res = await fetch(`${service.url}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('upstream_unavailable');
    expect(body.error.message).toBe('Not ready: the database did not answer within 3 s');
  });
});
