import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '../errors.ts';
import { apiKeyJson } from '../limits/key-json.ts';
import { usageReport } from '../limits/usage-report.ts';
import type { AppDeps } from './deps.ts';
import { hostnameOf, isLoopbackName } from './host-guard.ts';
import type { RouteTable } from './route-table.ts';

const LOOPBACK_ADDRESS = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * The admin surface (the dashboard's API): loopback only, never through a tunnel host, and only with the local
 * admin token from the data dir. No CORS: only same-origin pages (the dashboard itself) may call it.
 */
export function requireAdmin(adminToken: string): RequestHandler {
  const expected = Buffer.from(adminToken);
  return (req, _res, next) => {
    const host = hostnameOf(req.headers.host);
    if (!LOOPBACK_ADDRESS.test(req.socket.remoteAddress ?? '') || host === null || !isLoopbackName(host)) {
      return next(new AppError('forbidden', 'The admin API answers only on loopback.'));
    }
    const given = Buffer.from(/^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return next(new AppError('unauthorized', 'The admin API needs the local admin token.'));
    }
    next();
  };
}

export function mountAdminRoutes(routes: RouteTable, deps: AppDeps): void {
  routes.get('/admin/keys', 'admin', (_req, res) => {
    const now = deps.now();
    res.json({
      data: deps.keys.list().map((key) => {
        const today = deps.usage.today(key.id, now);
        return {
          ...apiKeyJson(key),
          today: {
            requests: today.requests,
            refused_per_second: today.refusedPerSecond,
            refused_daily: today.refusedDaily,
          },
        };
      }),
    });
  });

  routes.get('/admin/keys/:id/usage', 'admin', (req, res) => {
    const key = deps.keys.get(String(req.params.id));
    if (!key) throw new AppError('not_found', 'No API key with this id.');
    res.json(usageReport(key, deps.usage, deps.now()));
  });
}
