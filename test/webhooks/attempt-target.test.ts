/**
 * Each attempt records the address it actually went to, and the API decides what to show by that address,
 * not by the URL's text: a public-looking name that resolves to loopback is a loopback target.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { createServiceContext } from '../../server/context.ts';
import { closeServer, listen } from '../../server/listen.ts';
import { isOwnAddress, targetOf } from '../../server/webhooks/attempt-target.ts';
import { deliver } from '../../server/webhooks/sender.ts';
import { cliJson } from '../helpers/cli.ts';
import { writePeopleWorkbook } from '../helpers/fixtures.ts';
import type { TestResponse } from '../helpers/harness.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function receiver(answer: string): Promise<number> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

const body = Buffer.from('{}');
const lookupTo =
  (address: string): LookupFunction =>
  (_hostname, _options, callback) =>
    callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);

describe('deliver reports where the attempt went', () => {
  it('the peer connected to, the address refused by the OS or by policy, none when nothing resolved', async () => {
    const port = await receiver('hello');
    expect(
      await deliver({ url: `http://127.0.0.1:${port}/`, body, headers: {}, allowLan: false }),
    ).toMatchObject({ ok: true, address: '127.0.0.1', responseExcerpt: 'hello' });
    expect(
      await deliver({
        url: `http://localhost:${port}/`,
        body,
        headers: {},
        allowLan: false,
        lookup: lookupTo('127.0.0.1'),
      }),
    ).toMatchObject({ ok: true, address: '127.0.0.1' });

    // A closed port: the OS refuses, and the attempt still says where it knocked.
    const closed = await receiver('');
    await cleanups.pop()!();
    expect(
      await deliver({ url: `http://127.0.0.1:${closed}/`, body, headers: {}, allowLan: false }),
    ).toMatchObject({
      ok: false,
      error: 'ECONNREFUSED',
      address: '127.0.0.1',
    });

    expect(
      await deliver({
        url: 'https://lan.example/',
        body,
        headers: {},
        allowLan: false,
        lookup: lookupTo('10.1.2.3'),
      }),
    ).toMatchObject({ ok: false, error: 'address not allowed: 10.1.2.3', address: '10.1.2.3' });
    expect(await deliver({ url: 'https://10.9.9.9/', body, headers: {}, allowLan: false })).toMatchObject({
      ok: false,
      address: '10.9.9.9',
    });

    // A name offering a public address and a loopback one: local, unless a public peer answers.
    const mixed: LookupFunction = (_hostname, _o, cb) =>
      cb(null, [
        { address: '203.0.113.7', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ]);
    const split = await deliver({
      url: `https://mixed.example:${closed}/`,
      body,
      headers: {},
      allowLan: false,
      lookup: mixed,
      timeoutMs: 2000,
    });
    expect(split).toMatchObject({ ok: false, address: '127.0.0.1' });

    const nx: LookupFunction = (hostname, _o, cb) =>
      cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    expect(
      await deliver({ url: 'https://nowhere.invalid/', body, headers: {}, allowLan: false, lookup: nx }),
    ).toMatchObject({ ok: false, error: 'ENOTFOUND', address: null });
  });
});

describe('the delivery log of a name that resolves to loopback', () => {
  it('API: no excerpt, a coarse error; CLI: everything, with the address', async () => {
    const port = await receiver('internal admin page');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-target-'));
    const dataDir = path.join(dir, 'data');
    // The one stand-in: DNS. Nothing here can make a public name resolve to 127.0.0.1, so the real sender gets
    // a resolver that does (what a hostile DNS record would do).
    const context = createServiceContext({
      dataDir,
      log: () => {},
      webhookSend: (attempt) => deliver({ ...attempt, allowLan: false, lookup: lookupTo('127.0.0.1') }),
    });
    const { app } = createApp(context);
    const { server, port: apiPort } = await listen(app, 0, '127.0.0.1');
    cleanups.push(async () => {
      await closeServer(server);
      await context.close();
      await rm(dir, { recursive: true, force: true });
    });
    const key = (
      await context.keys.create({
        name: 't',
        scope: 'read_write',
        plan: 'enterprise',
        perSecond: 1e6,
        daily: 1e9,
      })
    ).key;
    const api = (p: string, init: RequestInit = {}): Promise<TestResponse> =>
      fetch(`http://127.0.0.1:${apiPort}${p}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
    const conn = await context.connections.create({
      name: 'people',
      sourceKind: 'workbook',
      idPrefix: 'wb_',
      location: await writePeopleWorkbook(dir),
    });
    // https to a public-looking name: registration cannot tell it is local.
    const created = await (
      await api('/v1/webhooks', {
        method: 'POST',
        body: JSON.stringify({
          url: `https://hooks.example.com:${port}/`,
          spreadsheet_id: conn.spreadsheetId,
          sheet_name: 'People',
        }),
      })
    ).json();
    expect(created.webhook_id).toMatch(/^wh_/);
    const appended = await api(`/api/spreadsheets/${conn.userKey}/People`, {
      method: 'POST',
      body: JSON.stringify({ Name: 'Probe' }),
    });
    expect(appended.status).toBe(201);
    await context.worker.drain();

    const log = await (await api(`/v1/webhooks/${created.webhook_id}/deliveries`)).json();
    const deliveryId = log.data[0].delivery_id as string;
    const detail = await (await api(`/v1/webhooks/${created.webhook_id}/deliveries/${deliveryId}`)).json();
    // The receiver speaks plain http, so TLS fails: in detail an SSL error code; in the API, only this.
    expect(detail.attempt_log[0]).toMatchObject({
      status: null,
      error: 'connection failed',
      response_excerpt: null,
    });

    const shown = await cliJson<{ attempt_log: Record<string, unknown>[] }>(
      ['deliveries', 'show', deliveryId],
      {
        dataDir,
      },
    );
    expect(shown.attempt_log[0]).toMatchObject({ target_address: '127.0.0.1', target_kind: 'loopback' });
    const detailedError = shown.attempt_log[0]!.error;
    expect(detailedError).toMatch(/^(EPROTO|ERR_SSL_[A-Z_]+|ECONNRESET)$/);

    // The admin surface (the dashboard) shows everything too, with the admin token, and only with it.
    const adminPath = `/admin/webhooks/${created.webhook_id}/deliveries/${deliveryId}`;
    const admin = await fetch(`http://127.0.0.1:${apiPort}${adminPath}`, {
      headers: { authorization: `Bearer ${context.adminToken}` },
    });
    expect(admin.status).toBe(200);
    const full = (await admin.json()) as { attempt_log: Record<string, unknown>[]; payload: unknown };
    expect(full.payload).toEqual(detail.payload);
    expect(full.attempt_log[0]).toMatchObject({
      status: null,
      error: detailedError,
      response_excerpt: '',
      target_address: '127.0.0.1',
      target_kind: 'loopback',
    });
    expect((await api(adminPath)).status).toBe(401); // an API key is not the admin token
    const missing = await fetch(
      `http://127.0.0.1:${apiPort}/admin/webhooks/${created.webhook_id}/deliveries/dlv_nope`,
      {
        headers: { authorization: `Bearer ${context.adminToken}` },
      },
    );
    expect(missing.status).toBe(404);
  }, 30_000);
});

describe("this machine's own addresses", () => {
  it('count as loopback: a service bound to 0.0.0.0 answers on them as on 127.0.0.1', () => {
    const interfaces = {
      eth0: [
        { address: '203.0.113.9', family: 'IPv4', internal: false },
        { address: 'fe80::1%eth0', family: 'IPv6', internal: false },
      ],
    } as unknown as ReturnType<typeof os.networkInterfaces>;
    expect(isOwnAddress('203.0.113.9', interfaces)).toBe(true);
    expect(isOwnAddress('::ffff:203.0.113.9', interfaces)).toBe(true);
    expect(isOwnAddress('fe80::1', interfaces)).toBe(true);
    expect(isOwnAddress('203.0.113.10', interfaces)).toBe(false);
    // The real interfaces: every address of this machine is recorded as a loopback target.
    const own = Object.values(os.networkInterfaces())
      .flat()
      .map((i) => i?.address.replace(/%.*$/, ''))
      .filter((a): a is string => Boolean(a));
    expect(own.length).toBeGreaterThan(0);
    for (const address of own) expect(targetOf(address), address).toEqual({ address, kind: 'loopback' });
    expect(targetOf('203.0.113.250').kind).toBe(own.includes('203.0.113.250') ? 'loopback' : 'public');
  });
});
