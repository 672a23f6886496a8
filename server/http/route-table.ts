/**
 * The one table of routes. Every route states, where it is declared, who may call it (its access) and what it
 * acts on (its resource); the route pipeline (route-pipeline.ts) runs the access's guards, then resolves the
 * resource and checks the key may reach it, and only then calls the handler with what it found. A handler never
 * authorizes: a route that acts on a resource cannot be declared without an access that checks a key.
 *
 * Access:
 * - `public`: anyone who passes the Host guard (the OpenAPI document).
 * - `read` / `read_write`: an API key; `read_write` needs a key of that scope, whatever the method.
 * - `public_read`: like `read`, but a connection its owner marked "public read" may be read without a key.
 * - `admin`: loopback and the local admin token or a dashboard session (the dashboard's API).
 * - `sign_in`: loopback only; the handler checks the sign-in code or admin token it is given (admin-sign-in.ts).
 *
 * Resources (each found from the path's parameters, docs/architecture.md "The route pipeline"):
 * - `connection`: by `:userKey`, or by `:id` (a spreadsheet_id);
 * - `tab`: by `:userKey` and `:sheetName`, or by `:sheetId` (a public sheet_id);
 * - `webhook`: by `:id`, one the key registered; `delivery`: by `:id` and `:deliveryId`, of that webhook.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type { DeliveryRecord } from '../repositories/deliveries.ts';
import type { ApiKeyRecord } from '../repositories/keys.ts';
import type { WebhookRecord } from '../repositories/webhooks.ts';
import type { TabSnapshot } from '../sources/source.ts';
import type { Spreadsheet } from '../spreadsheets/spreadsheet.ts';
import { reservePath } from './method-not-allowed.ts';
import { SegmentRouters } from './segment-routers.ts';

export type Access = 'public' | 'public_read' | 'read' | 'read_write' | 'admin' | 'sign_in';
/** The access levels that identify a caller by API key, the only ones a resource can be checked against. */
export type KeyAccess = 'public_read' | 'read' | 'read_write';
export const KEY_ACCESS: readonly Access[] = ['public_read', 'read', 'read_write'];

export type Resource = 'connection' | 'tab' | 'webhook' | 'delivery' | 'none';

/** The path parameters a resource is found by: a route naming none of these sets cannot declare it. */
export const RESOURCE_PARAMS: Record<Exclude<Resource, 'none'>, readonly (readonly string[])[]> = {
  connection: [['userKey'], ['id']],
  tab: [['userKey', 'sheetName'], ['sheetId']],
  webhook: [['id']],
  delivery: [['id', 'deliveryId']],
};

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteEntry {
  method: Method;
  path: string;
  access: Access;
  resource: Resource;
  /** A carrier's own request rules (see `Carrier`); absent for every other route. */
  carrier?: Carrier;
}

/**
 * A route whose requests carry calls of the API's routes (`/mcp`: each tool call is one request of `/v1`). Each
 * call it carries takes its rate-limit token and honours its Idempotency-Key as a request of its own route, so
 * the carrier's own request takes neither; its JSON body has the pipeline's rules with its own size limit.
 */
export interface Carrier {
  maxBodyBytes: number;
}

/** A connection and the one `Spreadsheet` that owns it. */
export interface ConnectionContext {
  connection: ConnectionRecord;
  spreadsheet: Spreadsheet;
}

interface Resolved {
  none: object;
  connection: ConnectionContext;
  tab: ConnectionContext & { tab: TabSnapshot };
  webhook: { webhook: WebhookRecord };
  delivery: { webhook: WebhookRecord; delivery: DeliveryRecord };
}

/** Who called: a key, or (only on `public_read` routes, for a public-read connection) nobody. */
export interface Caller<A extends KeyAccess> {
  key: A extends 'public_read' ? ApiKeyRecord | null : ApiKeyRecord;
  /**
   * For a spreadsheet a request names in its body (a webhook's `spreadsheet_id`), which the path cannot
   * resolve: 403 unless the key may reach it.
   */
  reach(connection: ConnectionRecord): void;
}

/** What a handler is given: the caller and the resource its route declared, resolved and authorized. */
export type RouteContext<A extends KeyAccess, R extends Resource> = Caller<A> & Resolved[R];

/**
 * What a key route's pipeline and handler read of a request. Express's request has it, and so has a call of the
 * route made without HTTP (an MCP tool's, route-call.ts): a handler cannot tell them apart.
 */
export interface RouteRequest {
  method: string;
  /** The path and query, as a request line has them (the request log, `Link`, the idempotency fingerprint). */
  originalUrl: string;
  protocol: string;
  params: Request['params'];
  query: Request['query'];
  body: unknown;
  headers: IncomingHttpHeaders;
  get(name: string): string | undefined;
}

/** What a key route's pipeline and handler do to its answer: Express's response, or a call's (route-call.ts). */
export interface RouteResponse {
  statusCode: number;
  readonly headersSent: boolean;
  readonly writableFinished: boolean;
  locals: Record<string, unknown>;
  status(code: number): RouteResponse;
  setHeader(name: string, value: OutgoingHttpHeader): unknown;
  getHeader(name: string): OutgoingHttpHeader | undefined;
  getHeaders(): OutgoingHttpHeaders;
  json(body: unknown): unknown;
  send(body?: unknown): unknown;
  end(): unknown;
  on(event: 'finish' | 'close', listener: () => void): unknown;
}

export type RouteHandler<A extends KeyAccess, R extends Resource> = (
  req: RouteRequest,
  res: RouteResponse,
  context: RouteContext<A, R>,
) => unknown;

/** A carrier's handler holds the connection itself (`/mcp`'s stream): Express's objects, never a call's. */
export type CarrierHandler<A extends KeyAccess, R extends Resource> = (
  req: Request,
  res: Response,
  context: RouteContext<A, R>,
) => unknown;

export interface RouteDeclaration<A extends KeyAccess, R extends Resource> {
  access: A;
  resource: R;
}

export interface CarrierDeclaration<A extends KeyAccess, R extends Resource> extends RouteDeclaration<A, R> {
  carrier: Carrier;
}

/** A route a key calls: its access is one of KEY_ACCESS. */
export type KeyEntry = RouteEntry & { access: KeyAccess };

/**
 * How the table runs a declared route. A route no key reaches: the guards of its access, as Express middleware
 * before its handler. A route a key calls: one step that runs the key access's guards and resolves and
 * authorizes its resource, giving the route context the handler is called with (the caller travels there and
 * nowhere else), or null when a guard has answered the request itself (an idempotent repeat).
 */
export interface Pipeline {
  guards(access: PlainAccess): RequestHandler[];
  enter(entry: KeyEntry, req: Request, res: Response): Promise<RouteContext<KeyAccess, Resource> | null>;
  /** The same steps for a call made as `key` (admitted already, by its carrier): its scope is still checked. */
  enterCall(
    entry: KeyEntry,
    req: RouteRequest,
    res: RouteResponse,
    key: ApiKeyRecord,
  ): Promise<RouteContext<KeyAccess, Resource> | null>;
}

/** A route that cannot be mounted as declared: a programming error, thrown when the app is built. */
export class RouteDeclarationError extends Error {}

/** Routes no key reaches; they act on no resource the pipeline resolves. */
export type PlainAccess = 'public' | 'admin' | 'sign_in';

/** One method's way to declare a route: a plain access, or a key access with the resource it acts on. */
export interface Mount {
  (path: string, access: PlainAccess, handler: RequestHandler): void;
  <A extends KeyAccess, R extends Resource>(
    path: string,
    route: CarrierDeclaration<A, R>,
    handler: CarrierHandler<A, R>,
  ): void;
  <A extends KeyAccess, R extends Resource>(
    path: string,
    route: RouteDeclaration<A, R>,
    handler: RouteHandler<A, R>,
  ): void;
}

export class RouteTable {
  /** Where the routes are mounted; the app mounts its `dispatch`. */
  readonly routers = new SegmentRouters();
  readonly #pipeline: Pipeline;
  readonly #admits: (entry: RouteEntry) => boolean;
  readonly entries: RouteEntry[] = [];
  /** The key routes a call may name (not carriers), by `METHOD path` as declared. */
  readonly #callable = new Map<string, { entry: KeyEntry; run: RouteHandler<KeyAccess, Resource> }>();
  readonly get: Mount = (path: string, declared: unknown, handler: unknown) =>
    this.#add('get', path, declared, handler);
  readonly post: Mount = (path: string, declared: unknown, handler: unknown) =>
    this.#add('post', path, declared, handler);
  readonly put: Mount = (path: string, declared: unknown, handler: unknown) =>
    this.#add('put', path, declared, handler);
  readonly patch: Mount = (path: string, declared: unknown, handler: unknown) =>
    this.#add('patch', path, declared, handler);
  readonly delete: Mount = (path: string, declared: unknown, handler: unknown) =>
    this.#add('delete', path, declared, handler);

  /** `admits` keeps a subset of the routes (the tunnel-only app's); a route it refuses is never mounted. */
  constructor(pipeline: Pipeline, admits: (entry: RouteEntry) => boolean = () => true) {
    this.#pipeline = pipeline;
    this.#admits = admits;
  }

  #add(method: Method, path: string, declared: unknown, handler: unknown): void {
    const entry = entryOf(method, path, declared);
    if (!this.#admits(entry)) return;
    this.entries.push(entry);
    if (typeof declared === 'string') {
      this.routers
        .for(path)
        [method](path, ...this.#pipeline.guards(entry.access as PlainAccess), handler as RequestHandler);
      return;
    }
    const run = handler as RouteHandler<KeyAccess, Resource>;
    const keyEntry = entry as KeyEntry;
    if (!entry.carrier) this.#callable.set(routeName(method, path), { entry: keyEntry, run });
    this.routers.for(path)[method](path, async (req: Request, res: Response) => {
      const context = await this.#pipeline.enter(keyEntry, req, res);
      if (context) await run(req, res, context);
    });
  }

  /** A literal path beside a parameter's routes, kept for its own `methods` (method-not-allowed.ts). */
  reserve(path: string, methods: readonly string[]): void {
    reservePath(this.routers.for(path), path, methods);
  }

  /**
   * Runs the key route declared as `route` (`GET /v1/sheets/:sheetId/rows`) for a call made without HTTP, as
   * `key`: its pipeline (scope, rate limit, Idempotency-Key, resource, reach) and its handler, on the request and
   * answer the caller made (route-call.ts). What the Express app runs around a route (the Host guard, the request
   * id, CORS, the request log) is the caller's: the call's carrier passed it. Throws what the route throws.
   */
  async call(route: string, req: RouteRequest, res: RouteResponse, key: ApiKeyRecord): Promise<void> {
    const callable = this.#callable.get(route);
    if (!callable) throw new AppError('not_found', `No route ${route}.`);
    const context = await this.#pipeline.enterCall(callable.entry, req, res, key);
    if (context) await callable.run(req, res, context);
  }
}

const routeName = (method: Method, path: string) => `${method.toUpperCase()} ${path}`;

/** The entry a declaration makes, refused when it cannot be authorized as declared. */
function entryOf(method: Method, path: string, declared: unknown): RouteEntry {
  const where = `${method.toUpperCase()} ${path}`;
  if (typeof declared === 'string')
    return { method, path, access: checkAccess(declared, where), resource: 'none' };
  const { access, resource, carrier } = (declared ?? {}) as {
    access?: unknown;
    resource?: unknown;
    carrier?: Carrier;
  };
  if (resource === undefined)
    throw new RouteDeclarationError(`${where}: declare its resource ('none' if none)`);
  if (!(resource === 'none' || Object.hasOwn(RESOURCE_PARAMS, String(resource)))) {
    throw new RouteDeclarationError(`${where}: unknown resource ${JSON.stringify(resource)}`);
  }
  // A handler given a resource relies on the key having been checked against it: only key access checks that.
  if (!KEY_ACCESS.includes(access as Access)) {
    throw new RouteDeclarationError(
      `${where}: a route declared with a resource needs the access that authorizes a key (${KEY_ACCESS.join(', ')}), got ${JSON.stringify(access)}`,
    );
  }
  const params = new Set([...path.matchAll(/:(\w+)/g)].map((m) => m[1]));
  const sets = resource === 'none' ? [[]] : RESOURCE_PARAMS[resource as Exclude<Resource, 'none'>];
  if (!sets.some((set) => set.every((p) => params.has(p)))) {
    throw new RouteDeclarationError(
      `${where}: its path names no parameter the ${String(resource)} is found by`,
    );
  }
  const entry: RouteEntry = { method, path, access: access as Access, resource: resource as Resource };
  return carrier ? { ...entry, carrier } : entry;
}

/** A plain access: one no key reaches (a key access must say what resource it acts on). */
function checkAccess(access: string, where: string): Access {
  if (KEY_ACCESS.includes(access as Access)) {
    throw new RouteDeclarationError(
      `${where}: access ${access} is declared with its resource ('none' if none)`,
    );
  }
  if (!['public', 'admin', 'sign_in'].includes(access)) {
    throw new RouteDeclarationError(`${where}: unknown access ${JSON.stringify(access)}`);
  }
  return access as Access;
}
