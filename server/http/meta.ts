import { readFileSync } from 'node:fs';
import { findPackageFile, packageVersion } from '../lib/package-file.ts';
import type { RouteTable } from './route-table.ts';

/**
 * What needs no key: the OpenAPI 3.1 document (it lives in docs/, reviewed like any doc, and is served as-is,
 * found from the source tree or the compiled `dist/`), and at `/` a short note of what this server is and where
 * to go next, for whoever opens the printed base URL in a browser.
 */
export function mountMetaRoutes(routes: RouteTable): void {
  routes.get('/', 'public', (_req, res) => {
    res.json({
      service: 'SheetPort',
      version: packageVersion(),
      openapi: '/openapi.json',
      rows: '/api/spreadsheets/{userKey}/{sheetName}',
      spreadsheets: '/v1/spreadsheets',
      dashboard: '/ui/',
    });
  });

  let cached: string | null = null;
  routes.get('/openapi.json', 'public', (_req, res) => {
    if (cached === null) {
      const file = findPackageFile('docs/openapi.json');
      if (!file) throw new Error('docs/openapi.json not found');
      cached = readFileSync(file, 'utf8');
    }
    res.type('application/json').send(cached);
  });
}
