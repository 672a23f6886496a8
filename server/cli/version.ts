import { readFileSync } from 'node:fs';
import { findPackageFile } from '../lib/package-file.ts';

/** The version in SheetPort's own package.json (`sheetport --version`). */
export function packageVersion(): string {
  const file = findPackageFile('package.json');
  if (!file) return 'unknown';
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
