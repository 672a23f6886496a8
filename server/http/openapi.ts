import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteTable } from './route-table.ts';

/**
 * The OpenAPI 3.1 document lives in docs/ (reviewed like any doc) and is served as-is. It is found by walking up
 * from this file, so the same code works from the source tree and from the compiled `dist/`.
 */
function findOpenApi(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, 'docs', 'openapi.json');
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('docs/openapi.json not found');
}

export function mountOpenApi(routes: RouteTable): void {
  let cached: string | null = null;
  routes.get('/openapi.json', 'public', (_req, res) => {
    cached ??= readFileSync(findOpenApi(), 'utf8');
    res.type('application/json').send(cached);
  });
}
