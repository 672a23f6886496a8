/**
 * Defaults and the data directory, in one place. The CLI, the server and the tray app all resolve the data
 * directory here so they share one database.
 */
import os from 'node:os';
import path from 'node:path';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';

/** Folder name under the OS app-data directory; matches the Electron app name so `app.getPath('userData')` agrees. */
export const APP_NAME = 'SheetPort';

/** Environment variable that overrides the data directory (below the `--data-dir` flag). */
export const DATA_DIR_ENV = 'SHEETPORT_DATA_DIR';

export interface ResolveDataDirOptions {
  /** `--data-dir` flag value, if given. */
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

/**
 * `--data-dir` flag, else `SHEETPORT_DATA_DIR`, else the per-user app-data folder, the same one Electron's
 * `app.getPath('userData')` returns for an app named "SheetPort":
 * - Linux (and other Unixes): `$XDG_CONFIG_HOME/SheetPort`, or `~/.config/SheetPort`
 * - macOS: `~/Library/Application Support/SheetPort`
 * - Windows: `%APPDATA%\SheetPort` (`~\AppData\Roaming\SheetPort` when APPDATA is unset)
 * A flag or env value is resolved against the current directory; empty values count as unset.
 */
export function resolveDataDir(options: ResolveDataDirOptions = {}): string {
  const { flag, env = process.env, platform = process.platform, home = os.homedir() } = options;
  if (flag) return path.resolve(flag);
  const fromEnv = env[DATA_DIR_ENV];
  if (fromEnv) return path.resolve(fromEnv);
  return defaultDataDir(platform, env, home);
}

/** The OS app-data folder for SheetPort (no flag/env). Paths use the separators of `platform`. */
export function defaultDataDir(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string {
  if (platform === 'win32') {
    const appData = env.APPDATA || path.win32.join(home, 'AppData', 'Roaming');
    return path.win32.join(appData, APP_NAME);
  }
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', APP_NAME);
  // Same rule as Chromium's GetXDGDirectory, which Electron uses: any non-empty value wins.
  const configHome = env.XDG_CONFIG_HOME || path.posix.join(home, '.config');
  return path.posix.join(configHome, APP_NAME);
}
