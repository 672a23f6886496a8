/**
 * Which build of better-sqlite3's native addon the process loads. Node (the CLI, the tests) loads the package's
 * own; the tray app started from a checkout (`npm run app`) loads the copy `npm run app:native` prepared for the
 * installed Electron, kept apart under node_modules/.cache so Node's build stays as it is; a packaged app loads
 * the package's own, which electron-builder packed for Electron. The choice is a value, so the app can refuse to
 * start with one clear line instead of better-sqlite3's stack trace.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The command that prepares the Electron build (scripts/electron-native.ts). */
export const PREPARE_NATIVE_COMMAND = 'npm run app:native';

/** Where the Electron build for `electronVersion` lives under the app's root (a checkout). */
export function electronSqliteBuildPath(appRoot: string, electronVersion: string): string {
  return path.join(
    appRoot,
    'node_modules',
    '.cache',
    'sheetport-electron',
    electronVersion,
    'better_sqlite3.node',
  );
}

export interface SqliteHost {
  /** process.versions: `electron` is set only inside Electron. */
  versions: { readonly electron?: string | undefined };
  /** The app's root folder (Electron's app.getAppPath()). */
  appRoot: string;
  /** Electron's app.isPackaged. */
  packaged: boolean;
}

export type SqliteBinding =
  /** better-sqlite3 finds its own addon (Node, or the packaged app). */
  | { kind: 'default' }
  /** Load this file (better-sqlite3's `nativeBinding` option). */
  | { kind: 'electron'; path: string }
  /** The Electron build is not there: the one line to print before quitting. */
  | { kind: 'missing'; message: string };

export function chooseSqliteBinding(
  host: SqliteHost,
  exists: (file: string) => boolean = existsSync,
): SqliteBinding {
  const electron = host.versions.electron;
  if (!electron || host.packaged) return { kind: 'default' };
  const file = electronSqliteBuildPath(host.appRoot, electron);
  if (exists(file)) return { kind: 'electron', path: file };
  return {
    kind: 'missing',
    message: `SheetPort: better-sqlite3 is not prepared for Electron ${electron}; run \`${PREPARE_NATIVE_COMMAND}\` (needs network access unless the addon is N-API), then start again.`,
  };
}
