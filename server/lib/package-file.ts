import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packedPath } from './archive-path.ts';

/**
 * A file shipped with SheetPort (package.json, docs/api.md), found by walking up from this module: `server/lib/`
 * in a checkout, `dist/server/lib/` in an installed package and inside the tray app's archive (whose main
 * thread reads it like any file). Null when it is not there.
 */
export function findPackageFile(
  relative: string,
  moduleUrl: string = import.meta.url,
  exists: (file: string) => boolean = existsSync,
): string | null {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, relative);
    if (exists(candidate)) return candidate;
    // This module unpacked beside the tray app's archive (app.asar.unpacked/): the file is in the archive.
    const packed = packedPath(candidate, exists);
    if (packed !== candidate) return packed;
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
