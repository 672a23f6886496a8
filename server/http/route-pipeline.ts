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
 * A carrier (`/mcp`, route-table.ts) has the key and the JSON body only, with its own size limit: the calls it
 * carries are rate-limited and idempotent as requests of their own routes.
 */
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors.ts';
import { reachOf, requireApiKey } from './auth.ts';
import { jsonBody } from './body.ts';
import type { AppDeps } from './deps.ts';
import { idempotency } from './idempotency.ts';
import { rateLimit } from './rate-limit.ts';
import { resolveConnection } from './resolve/connection.ts';
import { resolveTab, tabAddress } from './resolve/tab.ts';
import { resolveDelivery, resolveWebhook } from './resolve/webhook.ts';
import type {
  Access,
  Carrier,
  KeyAccess,
  Pipeline,
  Resource,
  RouteContext,
  RouteEntry,
} from './route-table.ts';

type AnyContext = RouteContext<KeyAccess, Resource>;

/** The guards of the access levels no key reaches, built by app.ts (admin.ts holds them). */
export type PlainGuards = Record<'public' | 'admin' | 'sign_in', RequestHandler[]>;

export function routePipeline(deps: AppDeps, plain: PlainGuards): Pipeline {
  const keyed = (access: KeyAccess): RequestHandler[] => [
    requireApiKey(deps.keys, deps.connections, access),
    ...(deps.limiter ? [rateLimit(deps.limiter)] : []),
    jsonBody(),
    idempotency(deps.idempotency),
  ];
  const guards: Record<Access, RequestHandler[]> = {
    ...plain,
    public_read: keyed('public_read'),
    read: keyed('read'),
    read_write: keyed('read_write'),
  };
  // A carrier's calls are each metered as requests of their own routes: its own request is not (route-table.ts).
  const carrying = (entry: RouteEntry & { carrier: Carrier }): RequestHandler[] => [
    requireApiKey(deps.keys, deps.connections, entry.access as KeyAccess),
    jsonBody(entry.carrier.maxBodyBytes),
  ];
  return {
    guards: (entry) =>
      entry.carrier ? carrying({ ...entry, carrier: entry.carrier }) : guards[entry.access],
    resolve: (entry, req, res) => resolveResource(deps, entry, req, res),
  };
}

async function resolveResource(
  deps: AppDeps,
  entry: RouteEntry,
  req: Request,
  res: Response,
): Promise<AnyContext> {
  const caller = reachOf(res);
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
      const tab = await resolveTab(spreadsheet, address);
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
