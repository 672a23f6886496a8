import type { Request, RequestHandler } from 'express';
import { AppError } from '../errors.ts';
import { hostnameOf, isLoopbackName } from '../lib/host-names.ts';
import { adminKeyJson } from '../limits/key-json.ts';
import { usageReport } from '../limits/usage-report.ts';
import {
  type ApiKeyRecord,
  KEY_PLANS,
  KEY_SCOPES,
  type KeyPlan,
  type KeyScope,
} from '../repositories/keys.ts';
import type { AdminAccess } from './admin-access.ts';
import type { AppDeps } from './deps.ts';
import type { RouteTable } from './route-table.ts';

const LOOPBACK_ADDRESS = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/** From a loopback address with a loopback `Host` name (never an `--allow-host` tunnel name). */
export function isLoopbackRequest(req: Request): boolean {
  const host = hostnameOf(req.headers.host);
  return LOOPBACK_ADDRESS.test(req.socket.remoteAddress ?? '') && host !== null && isLoopbackName(host);
}

/** The bearer credential of a request, or '' without one. */
export function bearerOf(req: Request): string {
  return /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
}

/** Loopback only, never through a tunnel host: the guard of every admin route, signing in included. */
export function requireLoopback(): RequestHandler {
  return (req, _res, next) => {
    if (!isLoopbackRequest(req)) {
      return next(new AppError('forbidden', 'The admin API answers only on loopback.'));
    }
    next();
  };
}

/**
 * The admin surface (the dashboard's API): loopback only, never through a tunnel host, and only with the local
 * admin token or a dashboard session (admin-access.ts). No CORS: only same-origin pages (the dashboard itself)
 * may call it. `streamToken` accepts a one-use stream token in place of the header on the one route an
 * EventSource opens (admin-events.ts): EventSource cannot send an Authorization header.
 */
export function requireAdmin(access: AdminAccess, streamToken?: (req: Request) => boolean): RequestHandler {
  const loopback = requireLoopback();
  return (req, res, next) =>
    loopback(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (streamToken?.(req)) return next();
      if (!access.admits(bearerOf(req))) {
        return next(
          new AppError(
            'unauthorized',
            'The admin API needs the local admin token or a dashboard session (open the dashboard again with `sheetport dashboard`).',
          ),
        );
      }
      next();
    });
}

const CREATE_KEYS = [
  'name',
  'scope',
  'plan',
  'connections',
  'allow_formulas',
  'per_second',
  'daily',
] as const;
const PLAN_KEYS = ['plan', 'per_second', 'daily'] as const;

/** An Enterprise key's own limit (`per_second`, `daily`); the store checks it against the plan. */
function limitOf(body: Record<string, unknown>, field: string): number | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new AppError('invalid_body', `"${field}" must be a positive whole number.`, { field });
  }
  return value;
}

/** A JSON object holding only `allowed` keys; an unknown key is named, so a typo is never silently dropped. */
export function adminBody(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  const list = allowed.map((k) => `"${k}"`).join(', ');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError('invalid_body', `Request body must be a JSON object with ${list}.`);
  }
  const extra = Object.keys(body).find((k) => !allowed.includes(k));
  if (extra !== undefined) {
    throw new AppError('invalid_body', `Unexpected key "${extra}" in the body; allowed: ${list}.`, {
      field: extra,
    });
  }
  return body as Record<string, unknown>;
}

function oneOf<T extends string>(body: Record<string, unknown>, field: string, allowed: readonly T[]): T {
  const value = body[field];
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new AppError('invalid_body', `"${field}" must be one of ${allowed.join(', ')}.`, { field });
  }
  return value as T;
}

/** Spreadsheet ids or userKeys, resolved to spreadsheet ids; an unknown one is named. */
async function connectionIds(deps: Pick<AppDeps, 'connections'>, raw: unknown): Promise<string[]> {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || raw.some((r) => typeof r !== 'string')) {
    throw new AppError('invalid_body', '"connections" must be an array of spreadsheet ids.', {
      field: 'connections',
    });
  }
  const ids: string[] = [];
  for (const ref of raw as string[]) {
    const found = await deps.connections.resolve(ref);
    if (!found) {
      throw new AppError('spreadsheet_not_found', `No spreadsheet with id "${ref}".`, {
        field: 'connections',
      });
    }
    ids.push(found.spreadsheetId);
  }
  return ids;
}

export function mountAdminRoutes(
  routes: RouteTable,
  deps: Pick<AppDeps, 'keys' | 'connections' | 'usage' | 'now'>,
): void {
  const keyOf = async (req: Request) => {
    const key = await deps.keys.get(String(req.params.id));
    if (!key) throw new AppError('not_found', 'No API key with this id.');
    return key;
  };

  const shown = (key: ApiKeyRecord) => adminKeyJson(key, deps.usage, deps.now());

  routes.get('/admin/keys', 'admin', async (_req, res) => {
    const keys = await deps.keys.list();
    res.json({ data: await Promise.all(keys.map(shown)) });
  });

  // The same use case as `sheetport keys create`: the key itself is in this answer and nowhere else, ever.
  routes.post('/admin/keys', 'admin', async (req, res) => {
    const body = adminBody(req.body ?? {}, CREATE_KEYS);
    if (body.name !== undefined && typeof body.name !== 'string') {
      throw new AppError('invalid_body', '"name" must be a string.', { field: 'name' });
    }
    if (body.allow_formulas !== undefined && typeof body.allow_formulas !== 'boolean') {
      throw new AppError('invalid_body', '"allow_formulas" must be true or false.', {
        field: 'allow_formulas',
      });
    }
    // Checked in the order of the fields, as before the lookups were async.
    const scope = body.scope === undefined ? 'read' : oneOf<KeyScope>(body, 'scope', KEY_SCOPES);
    const plan = body.plan === undefined ? 'free' : oneOf<KeyPlan>(body, 'plan', KEY_PLANS);
    const connections = await connectionIds(deps, body.connections);
    const { record, key } = await deps.keys.create({
      name: (body.name as string | undefined) ?? '',
      scope,
      plan,
      connections,
      allowFormulas: body.allow_formulas === true,
      perSecond: limitOf(body, 'per_second'),
      daily: limitOf(body, 'daily'),
    });
    res.status(201).json({ ...(await shown(record)), key });
  });

  routes.patch('/admin/keys/:id', 'admin', async (req, res) => {
    const key = await keyOf(req);
    const body = adminBody(req.body, PLAN_KEYS);
    const updated = await deps.keys.setPlan(key.id, {
      plan: oneOf<KeyPlan>(body, 'plan', KEY_PLANS),
      perSecond: limitOf(body, 'per_second'),
      daily: limitOf(body, 'daily'),
    });
    if (!updated) throw new AppError('not_found', 'No API key with this id.');
    res.json(await shown(updated));
  });

  // Revoking keeps the record (its usage stays readable); requests with the key fail from now on.
  routes.delete('/admin/keys/:id', 'admin', async (req, res) => {
    const key = await keyOf(req);
    await deps.keys.revoke(key.id);
    res.json(await shown((await deps.keys.get(key.id)) ?? key));
  });

  routes.get('/admin/keys/:id/usage', 'admin', async (req, res) => {
    res.json(await usageReport(await keyOf(req), deps.usage, deps.now()));
  });
}
