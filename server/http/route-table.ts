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
import type { Request, RequestHandler, Response, Router } from 'express';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type { DeliveryRecord } from '../repositories/deliveries.ts';
import type { ApiKeyRecord } from '../repositories/keys.ts';
import type { WebhookRecord } from '../repositories/webhooks.ts';
import type { TabSnapshot } from '../sources/source.ts';
import type { Spreadsheet } from '../spreadsheets/spreadsheet.ts';

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

export type RouteHandler<A extends KeyAccess, R extends Resource> = (
  req: Request,
  res: Response,
  context: RouteContext<A, R>,
) => unknown;

export interface RouteDeclaration<A extends KeyAccess, R extends Resource> {
  access: A;
  resource: R;
  carrier?: Carrier;
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
    route: RouteDeclaration<A, R>,
    handler: RouteHandler<A, R>,
  ): void;
}

export class RouteTable {
  readonly router: Router;
  readonly #pipeline: Pipeline;
  readonly #admits: (entry: RouteEntry) => boolean;
  readonly entries: RouteEntry[] = [];
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
  constructor(router: Router, pipeline: Pipeline, admits: (entry: RouteEntry) => boolean = () => true) {
    this.router = router;
    this.#pipeline = pipeline;
    this.#admits = admits;
  }

  #add(method: Method, path: string, declared: unknown, handler: unknown): void {
    const entry = entryOf(method, path, declared);
    if (!this.#admits(entry)) return;
    this.entries.push(entry);
    if (typeof declared === 'string') {
      this.router[method](
        path,
        ...this.#pipeline.guards(entry.access as PlainAccess),
        handler as RequestHandler,
      );
      return;
    }
    const run = handler as RouteHandler<KeyAccess, Resource>;
    const keyEntry = entry as KeyEntry;
    this.router[method](path, async (req: Request, res: Response) => {
      const context = await this.#pipeline.enter(keyEntry, req, res);
      if (context) await run(req, res, context);
    });
  }
}

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
