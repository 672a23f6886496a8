import { readFileSync } from 'node:fs';
import type { Router } from 'express';

const OPENAPI_PATH = new URL('../../docs/openapi.json', import.meta.url);

/** The OpenAPI 3.1 document lives in docs/ (reviewed like any doc) and is served as-is. */
export function mountOpenApi(router: Router): void {
  let cached: string | null = null;
  router.get('/openapi.json', (_req, res) => {
    cached ??= readFileSync(OPENAPI_PATH, 'utf8');
    res.type('application/json').send(cached);
  });
}
