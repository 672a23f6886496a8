import { existsSync, readFileSync } from 'node:fs';
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

let cachedVersion: string | undefined;

/** The version in SheetPort's own package.json ('0.0.0' when it cannot be found). */
export function packageVersion(): string {
  if (cachedVersion === undefined) {
    const file = findPackageFile('package.json');
    const pkg = file ? (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }) : {};
    cachedVersion = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  }
  return cachedVersion;
}
