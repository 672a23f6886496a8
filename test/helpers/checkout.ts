/**
 * Stand-in checkouts for the tray app's start-up scripts: a folder whose node_modules holds some of this
 * repository's real packages (symlinked), so a script can be pointed at a checkout with exactly those installed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** This repository's root. */
export const repo = path.resolve(import.meta.dirname, '../..');

/** The Electron version installed here, the one the app runs on. */
export const electronVersion = (
  JSON.parse(readFileSync(path.join(repo, 'node_modules/electron/package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** A temp folder for checkouts; `remove` deletes it with all of them. */
export function checkouts(prefix: string): {
  /** The temp folder itself, for other files of the test. */
  dir: string;
  /** A checkout's root whose node_modules holds the real packages named (symlinked) and a cache of its own. */
  checkoutWith(name: string, packages: string[]): string;
  remove(): void;
} {
  const temp = mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    dir: temp,
    checkoutWith(name, packages) {
      const root = path.join(temp, name);
      mkdirSync(path.join(root, 'node_modules', '@electron'), { recursive: true });
      for (const pkg of packages)
        symlinkSync(path.join(repo, 'node_modules', pkg), path.join(root, 'node_modules', pkg), 'dir');
      return root;
    },
    remove: () => rmSync(temp, { recursive: true, force: true }),
  };
}
