import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file shipped with SheetPort (package.json, docs/api.md), found by walking up from this module: `server/lib/`
 * in a checkout, `dist/server/lib/` in an installed package. Null when it is not there.
 */
export function findPackageFile(relative: string): string | null {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, relative);
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return null;
}

/** True when running the TypeScript sources of a checkout, false when running the compiled build. */
export function runningFromSource(): boolean {
  return import.meta.url.endsWith('.ts');
}
