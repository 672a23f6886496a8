/**
 * The optional public tunnel, over real HTTP. ngrok's cloud cannot be reached from here (the machine reaches only
 * package registries), so the provider is a fake that reports a URL; everything on our side is real: startServer,
 * the tunnel-only listener on its own port, the secrets provider, the routes and their guards. Requests are sent to
 * the tunnel-only listener as the tunnel's agent would send them: `Host` is the public name and `X-Forwarded-For`
 * ends with the client's address.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app.ts';
import { storeTunnelAuthtoken } from '../../server/cli/tunnel.ts';
import { createServiceContext, type ServiceContext } from '../../server/context.ts';
import { type RunningServer, startServer } from '../../server/index.ts';
import { closeServer, listen } from '../../server/listen.ts';
import type { ConnectionRecord } from '../../server/repositories/connections.ts';
import { openSecretsProvider } from '../../server/secrets/choose.ts';
import { SECRET_NAMES } from '../../server/secrets/provider.ts';
import type { TunnelProvider } from '../../server/tunnel/provider.ts';
import { writeCsv } from '../helpers/fixtures.ts';

const PUBLIC_HOST = 'fake-tunnel.example';
const PUBLIC_URL = `https://${PUBLIC_HOST}`;
const AUTHTOKEN = '2fakeAuthtoken_0123456789abcdef';

/** A provider that reports a URL without going anywhere; it records what it was given. */
function fakeProvider(failure?: Error) {
  const starts: { localPort: number; authtoken: string }[] = [];
  let closes = 0;
  const provider: TunnelProvider = {
    name: 'fake',
    async start(options) {
      starts.push(options);
      if (failure) throw failure;
      return {
        url: PUBLIC_URL,
        close: async () => {
          closes++;
        },
      };
    },
  };
  return { provider, starts, closes: () => closes };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are checked by assertions
  json: any;
}

/** One request on its own socket, with the headers given (node:http, so `Host` can be the public name). */
function request(port: number, pathName: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: pathName,
        method,
        headers: { host: PUBLIC_HOST, ...headers },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          let json: unknown = null;
          try {
            json = body ? JSON.parse(body) : null;
          } catch {
            json = body;
          }
          resolve({ status: res.statusCode!, headers: res.headers, json });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Whether anything accepts connections on `port` (a closed tunnel-only listener must not). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
  });
}

const portOf = (server: http.Server | null) => (server!.address() as AddressInfo).port;

let dir: string;
let dataDir: string;
let conn: ConnectionRecord;
let key: string;
let running: RunningServer | null = null;
let logged: string[] = [];

/** A data dir with one CSV connection (public read) and one read key, set up before the server starts. */
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sheetport-tunnel-'));
  dataDir = path.join(dir, 'data');
  const file = await writeCsv(dir, 'people.csv', 'Name,Age\nAnn,30\nBen,41\n');
  const setup = createServiceContext({ dataDir, log: () => {} });
  conn = await setup.connections.create({
    name: 'people.csv',
    sourceKind: 'workbook',
    idPrefix: 'wb_',
    location: file,
  });
  key = (await setup.keys.create({ scope: 'read', plan: 'enterprise', perSecond: 10_000, daily: 1e6 })).key;
  await setup.close();
  logged = [];
});
afterEach(async () => {
  await running?.stop();
  running = null;
  await rm(dir, { recursive: true, force: true });
});

function start(provider: TunnelProvider, tunnel = true): Promise<RunningServer> {
  return startServer({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    log: (message) => logged.push(message),
    requestLog: false,
    tunnel,
    tunnelProvider: provider,
  }).then((s) => {
    running = s;
    return s;
  });
}

const rows = () => `/api/spreadsheets/${conn.userKey}/people`;
const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

describe('the tunnel-only listener', () => {
  it('opens with the authtoken from the secrets provider on a port of its own', async () => {
    storeTunnelAuthtoken(openSecretsProvider(dataDir), `  ${AUTHTOKEN}\n`);
    const fake = fakeProvider();
    const server = await start(fake.provider);
    expect(fake.starts).toEqual([{ localPort: portOf(server.tunnelServer), authtoken: AUTHTOKEN }]);
    expect(portOf(server.tunnelServer)).not.toBe(server.port);
    expect(server.tunnelUrl).toBe(PUBLIC_URL);
    expect(server.status().tunnel).toEqual({ state: 'open', url: PUBLIC_URL, error: null, provider: 'fake' });
    // The dashboard reads the same through the admin API, on the loopback listener.
    const admin = await request(server.port, '/admin/tunnel', {
      host: '127.0.0.1',
      ...bearer(server.adminToken),
    });
    expect(admin.status).toBe(200);
    expect(admin.json).toEqual({
      state: 'open',
      url: PUBLIC_URL,
      error: null,
      provider: 'fake',
      exposes: ['/api', '/v1', '/mcp'],
    });
  });

  it('serves /api and /v1 with a key, and nothing else: no /ui, no /admin, no meta routes', async () => {
    openSecretsProvider(dataDir).set(SECRET_NAMES.tunnelAuthtoken, AUTHTOKEN);
    const server = await start(fakeProvider().provider);
    const port = portOf(server.tunnelServer);

    const api = await request(port, rows(), bearer(key));
    expect(api.status).toBe(200);
    expect(api.json.map((r: { Name: string }) => r.Name)).toEqual(['Ann', 'Ben']);
    const v1 = await request(port, '/v1/spreadsheets', bearer(key));
    expect(v1.status).toBe(200);
    expect(v1.json.data.map((s: { spreadsheet_id: string }) => s.spreadsheet_id)).toEqual([
      conn.spreadsheetId,
    ]);
    // CORS as on loopback.
    expect(
      (await request(port, '/v1/spreadsheets', { ...bearer(key), origin: 'https://app.example' })).headers,
    ).toMatchObject({ 'access-control-allow-origin': '*' });

    // Keys stay mandatory.
    expect((await request(port, '/v1/spreadsheets')).status).toBe(401);
    expect((await request(port, rows())).status).toBe(401); // not public-read
    expect((await request(port, rows(), bearer('sp_not_a_key'))).status).toBe(401);

    // Everything else is 404 in the error envelope, the admin token notwithstanding.
    const admin = bearer(server.adminToken);
    for (const [method, pathName] of [
      ['GET', '/'],
      ['GET', '/openapi.json'],
      ['GET', '/ui'],
      ['GET', '/ui/'],
      ['GET', '/ui/index.html'],
      ['GET', '/admin/keys'],
      ['POST', '/admin/keys'],
      ['GET', '/admin/tunnel'],
      ['POST', '/admin/events/token'],
      ['GET', '/admin/connections'],
    ] as const) {
      const answer = await request(port, pathName, admin, method);
      expect({ method, pathName, status: answer.status }).toEqual({ method, pathName, status: 404 });
      expect(answer.json.error).toMatchObject({
        code: 'not_found',
        message: `No route for ${method} ${pathName}.`,
      });
      expect(answer.json.error.request_id).toEqual(expect.any(String));
    }
    // Loopback names pass the Host guard too, and still find no admin route.
    expect((await request(port, '/admin/keys', { host: '127.0.0.1', ...admin })).status).toBe(404);

    // The Host guard accepts the tunnel's public name (and loopback names) only.
    expect((await request(port, '/v1/spreadsheets', { ...bearer(key), host: '127.0.0.1' })).status).toBe(200);
    const foreign = await request(port, '/v1/spreadsheets', { ...bearer(key), host: 'evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.json.error.code).toBe('forbidden');

    // The loopback listener is unchanged: the dashboard and the admin API are there.
    expect((await request(server.port, '/admin/keys', { host: '127.0.0.1', ...admin })).status).toBe(200);
    expect((await request(server.port, '/', { host: '127.0.0.1' })).status).toBe(200);
  });

  it('limits public reads per forwarded client address; the loopback listener ignores X-Forwarded-For', async () => {
    openSecretsProvider(dataDir).set(SECRET_NAMES.tunnelAuthtoken, AUTHTOKEN);
    const server = await start(fakeProvider().provider);
    await server.context.connections.setPublicRead(conn.spreadsheetId, true);
    const tunnelPort = portOf(server.tunnelServer);
    // The daily counter is per subject and does not depend on timing: each request of a subject takes one.
    const dailyLeft = async (port: number, headers: Record<string, string>) => {
      const answer = await request(port, rows(), headers);
      expect(answer.status).toBe(200);
      return Number(answer.headers['x-ratelimit-daily-remaining']);
    };
    const a = { 'x-forwarded-for': '203.0.113.7' };
    const b = { 'x-forwarded-for': '198.51.100.23' };
    expect(await dailyLeft(tunnelPort, a)).toBe(4999);
    expect(await dailyLeft(tunnelPort, a)).toBe(4998);
    expect(await dailyLeft(tunnelPort, b)).toBe(4999); // another client, its own limit
    // A client's own X-Forwarded-For comes before the address the tunnel appends: only the last entry counts.
    expect(await dailyLeft(tunnelPort, { 'x-forwarded-for': '198.51.100.23, 203.0.113.7' })).toBe(4997);

    // On the loopback listener the header is the caller's word and is ignored: one address, one limit.
    const local = (xff: string) => ({ host: '127.0.0.1', 'x-forwarded-for': xff });
    expect(await dailyLeft(server.port, local('192.0.2.1'))).toBe(4999);
    expect(await dailyLeft(server.port, local('192.0.2.2'))).toBe(4998);
    expect(await dailyLeft(server.port, { host: '127.0.0.1' })).toBe(4997);
  });

  it('closes on request and at stop: the public URL and its listener go, the loopback listener stays', async () => {
    openSecretsProvider(dataDir).set(SECRET_NAMES.tunnelAuthtoken, AUTHTOKEN);
    const fake = fakeProvider();
    const server = await start(fake.provider);
    const port = portOf(server.tunnelServer);
    await server.closeTunnel();
    expect(fake.closes()).toBe(1);
    expect(server.tunnelUrl).toBeNull();
    expect(server.tunnelServer).toBeNull();
    expect(server.status().tunnel.state).toBe('off');
    expect(await accepts(port)).toBe(false);
    expect(
      (await request(server.port, '/v1/spreadsheets', { host: '127.0.0.1', ...bearer(key) })).status,
    ).toBe(200);
    // Open again, then stop: the stop closes it too.
    expect((await server.openTunnel()).state).toBe('open');
    const again = portOf(server.tunnelServer);
    await server.stop();
    running = null;
    expect(fake.closes()).toBe(2);
    expect(await accepts(again)).toBe(false);
  });

  it('is off by default: no listener, no provider call', async () => {
    openSecretsProvider(dataDir).set(SECRET_NAMES.tunnelAuthtoken, AUTHTOKEN);
    const fake = fakeProvider();
    const server = await start(fake.provider, false);
    expect(fake.starts).toEqual([]);
    expect(server.tunnelUrl).toBeNull();
    expect(server.tunnelServer).toBeNull();
    expect(server.status().tunnel).toEqual({ state: 'off', url: null, error: null, provider: 'fake' });
  });
});

describe('a tunnel that does not open', () => {
  it('leaves the local server serving, logs why and never shows the authtoken', async () => {
    openSecretsProvider(dataDir).set(SECRET_NAMES.tunnelAuthtoken, AUTHTOKEN);
    const fake = fakeProvider(new Error(`failed to connect session: authentication failed for ${AUTHTOKEN}`));
    const server = await start(fake.provider);
    expect(fake.starts).toHaveLength(1);
    const status = server.status().tunnel;
    expect(status.state).toBe('failed');
    expect(status.url).toBeNull();
    expect(status.error).toMatch(
      /^The fake tunnel did not open \(the server goes on serving locally\): failed to connect/,
    );
    expect(logged).toEqual([status.error]);
    expect(JSON.stringify([status, logged])).not.toContain(AUTHTOKEN);
    // Its listener was closed again; the loopback listener serves.
    expect(server.tunnelServer).toBeNull();
    expect(await accepts(fake.starts[0]!.localPort)).toBe(false);
    expect((await request(server.port, rows(), { host: '127.0.0.1', ...bearer(key) })).status).toBe(200);
    const admin = await request(server.port, '/admin/tunnel', {
      host: '127.0.0.1',
      ...bearer(server.adminToken),
    });
    expect(admin.json).toMatchObject({ state: 'failed', url: null, error: status.error });
  });

  it('without an authtoken: says how to set one, calls no provider, and opens once one is stored', async () => {
    const fake = fakeProvider();
    const server = await start(fake.provider);
    expect(fake.starts).toEqual([]);
    expect(server.status().tunnel.state).toBe('failed');
    expect(server.status().tunnel.error).toMatch(/No tunnel authtoken is stored.*`sheetport tunnel token`/);
    expect(logged).toHaveLength(1);
    expect(
      (await request(server.port, '/v1/spreadsheets', { host: '127.0.0.1', ...bearer(key) })).status,
    ).toBe(200);
    // The token is read at each open: one stored while the server runs is used by the next open.
    storeTunnelAuthtoken(openSecretsProvider(dataDir), AUTHTOKEN);
    expect(await server.openTunnel()).toEqual({
      state: 'open',
      url: PUBLIC_URL,
      error: null,
      provider: 'fake',
    });
    expect(fake.starts[0]!.authtoken).toBe(AUTHTOKEN);
  });

  it('a provider that never answers counts as failed after the start timeout', async () => {
    const context = createServiceContext({ dataDir, log: () => {} });
    try {
      const { TunnelSwitch } = await import('../../server/tunnel/switch.ts');
      let late = 0;
      const never: TunnelProvider = {
        name: 'slow',
        start: () =>
          new Promise((resolve) =>
            setTimeout(() => resolve({ url: PUBLIC_URL, close: async () => void late++ }), 200),
          ),
      };
      const messages: string[] = [];
      const tunnel = new TunnelSwitch({
        app: createApp(context, { surface: 'tunnel' }).app,
        provider: never,
        authtoken: () => AUTHTOKEN,
        log: (m) => messages.push(m),
        startTimeoutMs: 50,
      });
      const outcome = await tunnel.open();
      expect(outcome.state).toBe('failed');
      expect(outcome.error).toMatch(/no answer within/);
      expect(messages).toEqual([outcome.error]);
      await new Promise((r) => setTimeout(r, 300));
      expect(late).toBe(1); // what opened too late was closed again
      expect(tunnel.server).toBeNull();
    } finally {
      await context.close();
    }
  });
});

describe('per-address limits on the tunnel app (frozen clock)', () => {
  let context: ServiceContext;
  let servers: http.Server[] = [];
  afterEach(async () => {
    for (const s of servers) await closeServer(s);
    servers = [];
    await context.close();
  });

  /** Many concurrent anonymous reads of a public-read tab, each with its X-Forwarded-For. */
  async function burst(port: number, forwardedFor: (i: number) => string, count: number, host = PUBLIC_HOST) {
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        request(port, rows(), { host, 'x-forwarded-for': forwardedFor(i) }),
      ),
    );
    return answers.map((a) => a.status);
  }

  it('gives each forwarded client its own 10 per second; the loopback app gives them one between them', async () => {
    const now = Date.UTC(2026, 0, 15, 12, 0, 0);
    context = createServiceContext({ dataDir, log: () => {}, clock: () => new Date(now) });
    await context.connections.setPublicRead(conn.spreadsheetId, true);
    const tunnelApp = createApp(context, { surface: 'tunnel', tunnelHosts: () => [PUBLIC_HOST] });
    const localApp = createApp(context);
    const tunnel = await listen(tunnelApp.app, 0, '127.0.0.1');
    const local = await listen(localApp.app, 0, '127.0.0.1');
    servers = [tunnel.server, local.server];

    const a = await burst(tunnel.port, () => '203.0.113.7', 15);
    expect(a.filter((s) => s === 200)).toHaveLength(10);
    expect(a.filter((s) => s === 429)).toHaveLength(5);
    // Another client in the same (frozen) second still has its whole limit.
    const b = await burst(tunnel.port, () => '198.51.100.23', 10);
    expect(b.every((s) => s === 200)).toBe(true);

    // The loopback listener: fifteen different X-Forwarded-For values are still one caller (127.0.0.1).
    const spoofed = await burst(local.port, (i) => `192.0.2.${i + 1}`, 15, '127.0.0.1');
    expect(spoofed.filter((s) => s === 200)).toHaveLength(10);
    expect(spoofed.filter((s) => s === 429)).toHaveLength(5);
  });
});
