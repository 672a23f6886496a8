/**
 * `/ui`: the dashboard's built files (renderer/dist). Loopback only, like `/admin` (never through an
 * `--allow-host` tunnel name), with a strict CSP (no inline script, nothing from elsewhere) and no framing. The
 * page carries no secret: it reads the admin token from its URL fragment, which browsers never send.
 */
import express, { type RequestHandler, Router } from 'express';
import { AppError } from '../errors.ts';
import { isLoopbackRequest } from './admin.ts';
import { fitsHeaderBudget } from './header-budget.ts';
import { defaultUiDir } from './ui-dir.ts';

export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', UI_CSP);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  next();
};

/**
 * `/ui` to `/ui/`, where the page is. The query goes along only while `Location` keeps the header section within
 * its budget (header-budget.ts); the page reads nothing from it anyway (its token comes in the fragment).
 */
const toPage: RequestHandler = (req, res, next) => {
  const q = req.originalUrl.indexOf('?');
  const pathname = q === -1 ? req.originalUrl : req.originalUrl.slice(0, q);
  if (req.path !== '/' || pathname.endsWith('/')) return next();
  const query = q === -1 ? '' : req.originalUrl.slice(q);
  const withQuery = `${pathname}/${query}`;
  res.redirect(301, fitsHeaderBudget(res, 'Location', withQuery) ? withQuery : `${pathname}/`);
};

export function uiRouter(dir: string | null = defaultUiDir()): Router {
  const router = Router();
  router.use((req, _res, next) => {
    if (!isLoopbackRequest(req))
      return next(new AppError('forbidden', 'The dashboard answers only on loopback.'));
    next();
  });
  router.use(securityHeaders);
  if (dir === null) {
    router.use((_req, res) => {
      res
        .status(503)
        .type('text/plain')
        .send('The dashboard is not built. Run: npm run build:ui (npm install does it too).');
    });
    return router;
  }
  router.use(toPage);
  router.use(
    express.static(dir, {
      index: 'index.html',
      // A folder without its slash is not sent on: serve-static's redirect would repeat the whole URL, query
      // included, in Location. `/ui` itself is redirected by toPage.
      redirect: false,
      // The page itself is always fetched fresh; Vite's hashed assets may be kept.
      setHeaders: (res, file) => {
        res.setHeader(
          'Cache-Control',
          file.endsWith('.html') ? 'no-store' : 'public, max-age=31536000, immutable',
        );
      },
    }),
  );
  return router;
}
