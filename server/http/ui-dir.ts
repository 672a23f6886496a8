import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unpackedPath } from '../lib/archive-path.ts';

/**
 * renderer/dist beside server/ (a checkout), or one level further up (the compiled package's dist/server); in
 * the packaged tray app, its unpacked copy beside the archive, so the files are served as plain files.
 */
export function defaultUiDir(
  moduleUrl: string = import.meta.url,
  exists: (file: string) => boolean = existsSync,
): string | null {
  for (const rel of ['../../renderer/dist', '../../../renderer/dist']) {
    const dir = unpackedPath(fileURLToPath(new URL(rel, moduleUrl)), exists);
    if (exists(path.join(dir, 'index.html'))) return dir;
  }
  return null;
}
