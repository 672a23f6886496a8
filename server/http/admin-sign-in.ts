/**
 * Signing in to the dashboard and rotating the admin token (admin-access.ts holds the state). Every secret here
 * travels in a body or the Authorization header, never in a path or a query, so none reaches a log line.
 *
 * - `POST /admin/sign-in-codes` (admin): a one-use code for `/ui/#code=...`, good for a minute.
 * - `POST /admin/session`: `{"code": ...}` (a live code), or no body with the admin token itself as bearer (the
 *   page's "paste the token" form): a dashboard session. Loopback only; a used or expired code is 401.
 * - `DELETE /admin/session` (admin): ends the session that calls it.
 * - `POST /admin/admin-token/rotate` (admin): a new admin token; the old one, all sessions and codes stop working.
 */
import { AppError } from '../errors.ts';
import { adminBody, bearerOf } from './admin.ts';
import type { AppDeps } from './deps.ts';
import type { RouteTable } from './route-table.ts';

export const SIGN_IN_EXPIRED_MESSAGE =
  'This sign-in link has expired or was used; open the dashboard again from the tray menu or `sheetport dashboard`.';

export function mountAdminSignInRoutes(routes: RouteTable, deps: Pick<AppDeps, 'adminAccess'>): void {
  const access = deps.adminAccess;

  routes.post('/admin/sign-in-codes', 'admin', (req, res) => {
    adminBody(req.body ?? {}, []);
    const { code, expiresAt } = access.issueCode();
    res.status(201).json({ code, expires_at: new Date(expiresAt).toISOString() });
  });

  routes.post('/admin/session', 'sign_in', (req, res) => {
    const body = adminBody(req.body ?? {}, ['code']);
    let session: string | null;
    if (body.code !== undefined) {
      if (typeof body.code !== 'string') {
        throw new AppError('invalid_body', '"code" must be a string.', { field: 'code' });
      }
      session = access.redeemCode(body.code);
      if (!session) throw new AppError('unauthorized', SIGN_IN_EXPIRED_MESSAGE);
    } else {
      if (!access.isAdminToken(bearerOf(req))) {
        throw new AppError('unauthorized', 'Signing in needs a sign-in code or the local admin token.');
      }
      session = access.openSession();
    }
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json({ session });
  });

  routes.delete('/admin/session', 'admin', (req, res) => {
    access.endSession(bearerOf(req));
    res.status(204).end();
  });

  routes.post('/admin/admin-token/rotate', 'admin', (req, res) => {
    adminBody(req.body ?? {}, []);
    access.rotate();
    res.json({ rotated: true });
  });
}
