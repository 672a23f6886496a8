import cors from 'cors';
import type { RequestHandler } from 'express';
import { firstSegment } from './segment-routers.ts';

/**
 * `/api` and `/v1` are called from browsers and no-code tools on other origins. Authentication is a bearer
 * header, never a cookie, so `*` is safe: credentials are not allowed.
 */
export function apiCors() {
  return cors({
    origin: '*',
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'If-Match',
      'If-None-Match',
      'Idempotency-Key',
      'X-Request-Id',
    ],
    exposedHeaders: [
      'X-Request-Id',
      'X-Total-Count',
      'Link',
      'ETag',
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'X-RateLimit-Daily-Limit',
      'X-RateLimit-Daily-Remaining',
      'X-RateLimit-Daily-Reset',
      'RateLimit',
      'RateLimit-Policy',
      'Idempotent-Replayed',
      'X-Data-Age',
      'Warning',
      // Joined once here: the library joins an array again on every response.
    ].join(','),
    maxAge: 600,
  });
}

/**
 * `/mcp` for browser-based MCP clients (the MCP Inspector's direct mode): a bearer key as on `/api`, plus the
 * session and protocol headers Streamable HTTP uses.
 */
export function mcpCors() {
  return cors({
    origin: '*',
    credentials: false,
    methods: ['GET', 'POST', 'DELETE'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Accept',
      'Mcp-Session-Id',
      'Mcp-Protocol-Version',
      'Last-Event-ID',
    ],
    exposedHeaders: 'Mcp-Session-Id,WWW-Authenticate,X-Request-Id',
    maxAge: 600,
  });
}

/**
 * Preflight and CORS headers for every path under `/api`, `/v1` (apiCors) and `/mcp` (mcpCors), routed or not,
 * found by the path's first segment as the routes are (segment-routers.ts); other paths pass untouched.
 */
export function corsBySegment(): RequestHandler {
  const api = apiCors();
  const bySegment = new Map<string, RequestHandler>([
    ['api', api],
    ['v1', api],
    ['mcp', mcpCors()],
  ]);
  return (req, res, next) => {
    const handler = bySegment.get(firstSegment(req.path).toLowerCase());
    if (handler) handler(req, res, next);
    else next();
  };
}
