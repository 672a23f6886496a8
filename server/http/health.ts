/**
 * The probes a process manager, an orchestrator or a load balancer asks each instance:
 * - `/healthz` (liveness): the process answers. Nothing else is looked at, so a database outage never gets a
 *   healthy process restarted.
 * - `/readyz` (readiness): the store answers and its migrations are done (`AppDeps.ready`); else 503 in the
 *   error envelope, saying what is wrong, so a load balancer sends requests elsewhere meanwhile. A ready answer
 *   counts the spreadsheets still being read (`loading`): a workbook of a million rows takes seconds.
 * Both are public (no key, so never counted against one), not rate limited, and answered whatever the `Host`:
 * a probe names the instance by its address or service name, which the Host guard would refuse. They say
 * nothing a DNS-rebinding page could use. They stay out of the request log (exceptProbes): a probe every few
 * seconds would bury the requests people look for there.
 */
import type { RequestHandler } from 'express';
import { AppError } from '../errors.ts';
import type { AppDeps } from './deps.ts';
import type { RouteTable } from './route-table.ts';

export const PROBE_PATHS: readonly string[] = ['/healthz', '/readyz'];

/** A readiness check that hangs (a database behind a dead network path) is a "not ready" after this long. */
export const READY_TIMEOUT_MS = 3000;
/** What a 503 asks a client to wait before asking again (the envelope's `retry_after`, `Retry-After`). */
const RETRY_AFTER_S = 5;

export function mountHealthRoutes(routes: RouteTable, deps: Pick<AppDeps, 'ready' | 'spreadsheets'>): void {
  routes.get('/healthz', 'public', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  });
  routes.get('/readyz', 'public', async (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    try {
      await withTimeout(deps.ready(), READY_TIMEOUT_MS);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new AppError('upstream_unavailable', `Not ready: ${why}`, { retry_after: RETRY_AFTER_S });
    }
    // How many spreadsheets are still being read (a large workbook after a start), as a count: the probe is
    // public, so it names none.
    res.json({ status: 'ready', loading: deps.spreadsheets.loading() });
  });
}

/** `middleware` for every path but the probes' (the Host guard, the request log). */
export function exceptProbes(middleware: RequestHandler): RequestHandler {
  const probes = new Set(PROBE_PATHS);
  return (req, res, next) => (probes.has(req.path) ? next() : middleware(req, res, next));
}

function withTimeout(check: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([check, late]).finally(() => clearTimeout(timer));
}
