/**
 * The route pipeline: what runs between a request and the handler of a route declared in the route table
 * (route-table.ts), in this order (docs/architecture.md "The route pipeline"):
 *
 * 1. the access's guards: for a key access, the API key (401; public-read connections may go without one) and
 *    its scope (403 for a read key on a `read_write` route), the rate limit (429), the JSON body (400), the
 *    Idempotency-Key (a repeat answered from the store); for `admin`, loopback and the admin token or session;
 * 2. the resource: the connection (404), checked against the caller (403 off the key's allow-list, 401 for an
 *    anonymous read of a connection that is not public-read), then its tab (404), or the key's own webhook
 *    and its delivery (404);
 * 3. the handler, given `{ key, reach, connection, spreadsheet, tab, webhook, delivery }` as declared.
 *
 * A key access's guards are steps of one function, each given what the ones before found (the caller the key
 * guard admitted, the body's digest), so the caller travels in the route context alone.
 *
 * A carrier (`/mcp`, route-table.ts) has the key and the JSON body only, with its own size limit: the calls it
 * carries are rate-limited and idempotent as requests of their own routes. Such a call (`enterCall`, made
 * without HTTP by route-call.ts) comes with the key its carrier admitted and its body as a value; from the
 * scope on, it takes the same steps.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors.ts';
import { type Admitted, admitKey, callerOf, keyGuard } from './auth.ts';
import { MAX_BODY_BYTES, readJsonBody, tooLarge } from './body.ts';
import type { AppDeps } from './deps.ts';
import { idempotency } from './idempotency.ts';
import { rateLimit } from './rate-limit.ts';
import { resolveConnection } from './resolve/connection.ts';
import { addressedTab, tabAddress } from './resolve/tab.ts';
import { resolveDelivery, resolveWebhook } from './resolve/webhook.ts';
import type {
  Caller,
  KeyAccess,
  KeyEntry,
  Pipeline,
  PlainAccess,
  Resource,
  RouteContext,
  RouteRequest,
} from './route-table.ts';

type AnyContext = RouteContext<KeyAccess, Resource>;

/** What the pipeline uses: the key guard's, the limiter, the idempotency records and the resources' stores. */
export type PipelineDeps = Pick<
  AppDeps,
  'keys' | 'connections' | 'limiter' | 'idempotency' | 'spreadsheets' | 'webhooks' | 'deliveries'
>;

/** The guards of the access levels no key reaches, built by app.ts (admin.ts holds them). */
export type PlainGuards = Record<PlainAccess, RequestHandler[]>;

export function routePipeline(deps: PipelineDeps, plain: PlainGuards): Pipeline {
  const admit: Record<KeyAccess, (req: Request, res: Response) => Promise<Admitted>> = {
    public_read: keyGuard(deps, 'public_read'),
    read: keyGuard(deps, 'read'),
    read_write: keyGuard(deps, 'read_write'),
  };
  const limit = deps.limiter ? rateLimit(deps.limiter) : null;
  const answeredFromStore = idempotency(deps.idempotency);
  return {
    guards: (access) => plain[access],
    async enter(entry, req, res) {
      const admitted = await admit[entry.access](req, res);
      if (entry.carrier) {
        await readJsonBody(req, res, false, entry.carrier.maxBodyBytes);
        return resolveResource(deps, entry, req, callerOf(admitted));
      }
      if (limit) await limit(admitted, res);
      const bodyDigest = await readJsonBody(req, res, req.headers['idempotency-key'] !== undefined);
      if (await answeredFromStore(req, res, { key: admitted.key, bodyDigest })) return null;
      return resolveResource(deps, entry, req, callerOf(admitted));
    },
    async enterCall(entry, req, res, key) {
      const admitted = admitKey(key, entry.access, req.method, res);
      if (limit) await limit(admitted, res);
      const bodyDigest = digestOfCalled(req);
      if (await answeredFromStore(req, res, { key: admitted.key, bodyDigest })) return null;
      return resolveResource(deps, entry, req, callerOf(admitted));
    },
  };
}

/**
 * A call's body is a value already (its carrier read and bounded the JSON it came in): it is held to the API's
 * size as if sent on its own, and digested for its Idempotency-Key as the bytes it would have been sent as.
 */
function digestOfCalled(req: RouteRequest): string | undefined {
  if (req.body === undefined) return undefined;
  const text = JSON.stringify(req.body);
  if (Buffer.byteLength(text) > MAX_BODY_BYTES)
    throw new AppError('payload_too_large', tooLarge(MAX_BODY_BYTES));
  if (req.headers['idempotency-key'] === undefined) return undefined;
  return createHash('sha256').update(text).digest('hex');
}

async function resolveResource(
  deps: PipelineDeps,
  entry: KeyEntry,
  req: RouteRequest,
  caller: Caller<KeyAccess>,
): Promise<AnyContext> {
  switch (entry.resource) {
    case 'none':
      return caller as AnyContext;
    case 'connection': {
      const connection = await resolveConnection(deps.connections, req);
      caller.reach(connection);
      return { ...caller, connection, spreadsheet: deps.spreadsheets.of(connection) } as AnyContext;
    }
    case 'tab': {
      const address = await tabAddress(deps, req);
      caller.reach(address.connection);
      const spreadsheet = deps.spreadsheets.of(address.connection);
      const tab = await addressedTab(spreadsheet, address);
      return { ...caller, connection: address.connection, spreadsheet, tab } as AnyContext;
    }
    case 'webhook':
    case 'delivery': {
      if (caller.key === null) throw new AppError('unauthorized', 'Missing API key.');
      const webhook = await resolveWebhook(deps, req, caller.key);
      if (entry.resource === 'webhook') return { ...caller, webhook } as AnyContext;
      return { ...caller, webhook, delivery: await resolveDelivery(deps, req, webhook) } as AnyContext;
    }
  }
}
