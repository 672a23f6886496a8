import cors from 'cors';

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
    ],
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
    exposedHeaders: ['Mcp-Session-Id', 'WWW-Authenticate', 'X-Request-Id'],
    maxAge: 600,
  });
}
