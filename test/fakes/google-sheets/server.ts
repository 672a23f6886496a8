// The fake's HTTP server: Sheets v4 (/v4/...), Drive v3 (/drive/v3/...), OAuth (/o/oauth2/v2/auth,
// /token, /revoke) and test switches (/__fake/...) on one port. Routes match the raw path.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminRoutes } from './admin-routes.ts';
import { DEFAULT_FAKE_USER, driveRoutes, type FakeUser } from './drive-routes.ts';
import { badRequest, type GoogleApi, GoogleError } from './errors.ts';
import type { FakeRequest, FakeResponse, Route } from './http-types.ts';
import { missingCredentials, OAuthServer, unauthenticated } from './oauth.ts';
import { spreadsheetsRoutes } from './spreadsheets-routes.ts';
import { type Clock, Store } from './store.ts';
import { Switches } from './switches.ts';
import { valuesRoutes } from './values-routes.ts';

export type FakeGoogleOptions = {
  port?: number;
  host?: string;
  clock?: Clock;
  /** Reject bearer tokens this fake did not issue (default: any token is accepted). */
  strictAuth?: boolean;
  /** Who the tokens act for (Drive `about.user`); a fixed made-up user by default. */
  user?: FakeUser;
};

export type FakeGoogle = {
  url: string;
  port: number;
  store: Store;
  switches: Switches;
  oauth: OAuthServer;
  close: () => Promise<void>;
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (raw.trim() === '') return {};
  if (contentType?.includes('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(raw));
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw badRequest(`Invalid JSON payload received. Expected an object.`);
    return parsed as Record<string, unknown>;
  } catch (error) {
    if (error instanceof GoogleError) throw error;
    throw badRequest('Invalid JSON payload received. Unexpected token.');
  }
}

function send(res: ServerResponse, response: FakeResponse): void {
  const headers: Record<string, string> = { ...(response.headers ?? {}) };
  if (response.status === 204 || response.body === undefined) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  headers['content-type'] = 'application/json; charset=UTF-8';
  res.writeHead(response.status, headers);
  res.end(JSON.stringify(response.body, null, 2));
}

/** Which API a path belongs to (each is enabled or not in the client's Cloud project); OAuth and /__fake: none. */
const apiOf = (rawPath: string): GoogleApi | undefined =>
  rawPath.startsWith('/v4/') ? 'sheets' : rawPath.startsWith('/drive/v3/') ? 'drive' : undefined;

const notFoundRoute = (method: string, path: string): FakeResponse => ({
  status: 404,
  body: new GoogleError(404, `Method not found: ${method} ${path}`).envelope(),
});

export async function startFakeGoogle(options: FakeGoogleOptions = {}): Promise<FakeGoogle> {
  const clock = options.clock ?? Date.now;
  const store = new Store(clock);
  const switches = new Switches(clock);
  const oauth = new OAuthServer(clock);
  const routes: Route[] = [
    ...adminRoutes(store, switches, oauth),
    ...oauth.routes(),
    ...valuesRoutes(store),
    ...spreadsheetsRoutes(store),
    ...driveRoutes(store, options.user ?? DEFAULT_FAKE_USER),
  ];

  const authorize = (req: FakeRequest): string => {
    const header = req.headers.authorization ?? '';
    const bearer = /^Bearer\s+(.+)$/i.exec(header)?.[1];
    if (!bearer) throw missingCredentials();
    const state = oauth.check(bearer);
    if (state === 'invalid' || (state === 'unknown' && options.strictAuth)) throw unauthenticated();
    return bearer;
  };

  const handle = async (req: FakeRequest): Promise<FakeResponse> => {
    const candidates = routes.filter((r) => r.pattern.test(req.rawPath));
    const route = candidates.find((r) => r.method === req.method);
    if (!route) return notFoundRoute(req.method, req.rawPath);
    const params = (route.pattern.exec(req.rawPath) ?? []).slice(1);
    if (route.auth && switches.latencyMs > 0) await new Promise((r) => setTimeout(r, switches.latencyMs));
    try {
      if (route.auth) {
        const user = authorize(req);
        switches.checkEnabled(apiOf(req.rawPath));
        switches.takeFailure(route.quota);
        switches.charge(user, route.quota);
      }
      if (route.quota === 'write') await switches.aboutToWrite();
      const response = await route.handle(req, params);
      if (route.quota === 'write' && response.status < 300) switches.wrote();
      return response;
    } catch (error) {
      if (error instanceof GoogleError) return { status: error.code, body: error.envelope() };
      throw error;
    }
  };

  const server = createServer(async (incoming, res) => {
    try {
      const raw = incoming.url ?? '/';
      const queryStart = raw.indexOf('?');
      const rawPath = queryStart >= 0 ? raw.slice(0, queryStart) : raw;
      const query = new URLSearchParams(queryStart >= 0 ? raw.slice(queryStart + 1) : '');
      const rawBody = await readBody(incoming);
      let body: Record<string, unknown>;
      try {
        body = parseBody(rawBody, incoming.headers['content-type']);
      } catch (error) {
        if (error instanceof GoogleError) return send(res, { status: 400, body: error.envelope() });
        throw error;
      }
      send(
        res,
        await handle({
          method: incoming.method ?? 'GET',
          rawPath,
          query,
          headers: incoming.headers,
          rawBody,
          body,
        }),
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      send(res, {
        status: 500,
        body: new GoogleError(500, `Internal error encountered. ${message}`).envelope(),
      });
    }
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    store,
    switches,
    oauth,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
