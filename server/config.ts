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

/**
 * Bounds on reading one workbook file, so a hostile or broken file (a zip bomb, a FIFO, a huge CSV) costs a
 * bounded amount of time and memory. The defaults leave a 100,000-row workbook far inside every limit.
 */
export interface FileLimits {
  /** Largest file read at all, in bytes (the size on disk, compressed for .xlsx). */
  maxFileBytes: number;
  /** Largest total uncompressed size of an .xlsx package's parts, in bytes. */
  maxInflatedBytes: number;
  /** Longest a parse may run before it is stopped, in ms. */
  parseTimeoutMs: number;
  /** Heap cap of the thread that parses a file, in MB. */
  parseMemoryMb: number;
  /** Most cells one tab may span once read (header to last row, times the columns). */
  maxCells: number;
  /** Most characters of text one tab may hold once read (a text shared by many cells counts each time). */
  maxTextChars: number;
}

/**
 * Measured on a 100,000-row, 14-column workbook: 8.4 MB on disk, 49 MB unpacked, about 9 s and 700 MB of
 * heap to parse. The defaults allow roughly six times that; a parse needs about 10-15 bytes of heap per
 * unpacked byte, so the memory cap stops what the unpacked limit lets through before the machine suffers.
 */
export const DEFAULT_FILE_LIMITS: Readonly<FileLimits> = {
  maxFileBytes: 100 * 1024 * 1024,
  maxInflatedBytes: 300 * 1024 * 1024,
  parseTimeoutMs: 60_000,
  parseMemoryMb: 4096,
  // Google Sheets' own limit for a whole spreadsheet; a 100,000-row by 100-column tab is within it.
  maxCells: 10_000_000,
  maxTextChars: 200_000_000,
};

/** The environment variables that override each file limit (sizes in MB). */
export const FILE_LIMIT_ENV = {
  maxFileBytes: 'SHEETPORT_MAX_FILE_MB',
  maxInflatedBytes: 'SHEETPORT_MAX_INFLATED_MB',
  parseTimeoutMs: 'SHEETPORT_PARSE_TIMEOUT_MS',
  parseMemoryMb: 'SHEETPORT_PARSE_MEMORY_MB',
  maxCells: 'SHEETPORT_MAX_CELLS',
  /** In millions of characters. */
  maxTextChars: 'SHEETPORT_MAX_TEXT_MB',
} as const;

/** Defaults, overridden by any valid positive number in the environment; `overrides` win over both. */
export function resolveFileLimits(
  overrides: Partial<FileLimits> = {},
  env: NodeJS.ProcessEnv = process.env,
): FileLimits {
  const fromEnv = (name: string, scale: number, fallback: number): number => {
    const n = Number(env[name]);
    return env[name] && Number.isFinite(n) && n > 0 ? Math.round(n * scale) : fallback;
  };
  const MB = 1024 * 1024;
  const d = DEFAULT_FILE_LIMITS;
  return {
    maxFileBytes: fromEnv(FILE_LIMIT_ENV.maxFileBytes, MB, d.maxFileBytes),
    maxInflatedBytes: fromEnv(FILE_LIMIT_ENV.maxInflatedBytes, MB, d.maxInflatedBytes),
    parseTimeoutMs: fromEnv(FILE_LIMIT_ENV.parseTimeoutMs, 1, d.parseTimeoutMs),
    parseMemoryMb: fromEnv(FILE_LIMIT_ENV.parseMemoryMb, 1, d.parseMemoryMb),
    maxCells: fromEnv(FILE_LIMIT_ENV.maxCells, 1, d.maxCells),
    maxTextChars: fromEnv(FILE_LIMIT_ENV.maxTextChars, 1_000_000, d.maxTextChars),
    ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)),
  };
}

/**
 * Backups of local workbooks: before a write replaces a file, the version it replaces is kept under
 * `<data dir>/backups/` (the workbook kind's backups.ts). The limits hold per file.
 */
export interface BackupPolicy {
  /** The backups folder: `<data dir>/backups`. */
  dir: string;
  /** Versions kept per file, newest first; 0 turns backups off. */
  keep: number;
  /** Versions backed up longer ago than this many days are dropped; 0: no age limit. */
  maxAgeDays: number;
  /** The oldest versions of a file are dropped while its versions together exceed this; 0: no size limit. */
  maxBytes: number;
}

/** The folder under the data dir that holds the backups. */
export const BACKUPS_DIR = 'backups';

export const DEFAULT_BACKUP_POLICY: Readonly<Omit<BackupPolicy, 'dir'>> = {
  keep: 10,
  maxAgeDays: 30,
  maxBytes: 1024 * 1024 * 1024,
};

/** The environment variables that override each backup setting (0 turns a limit, or `keep` backups, off). */
export const BACKUP_ENV = {
  keep: 'SHEETPORT_BACKUPS_KEEP',
  maxAgeDays: 'SHEETPORT_BACKUPS_MAX_AGE_DAYS',
  /** In MB. */
  maxBytes: 'SHEETPORT_BACKUPS_MAX_MB',
} as const;

/** `<data dir>/backups` with the defaults, overridden by any valid number (0 or more) in the environment; `overrides` win over both. */
export function resolveBackupPolicy(
  dataDir: string,
  overrides: Partial<Omit<BackupPolicy, 'dir'>> = {},
  env: NodeJS.ProcessEnv = process.env,
): BackupPolicy {
  const fromEnv = (name: string, fallback: number): number => {
    const n = Number(env[name]);
    return env[name]?.trim() && Number.isFinite(n) && n >= 0 ? n : fallback;
  };
  const d = DEFAULT_BACKUP_POLICY;
  return {
    dir: path.join(dataDir, BACKUPS_DIR),
    keep: Math.floor(fromEnv(BACKUP_ENV.keep, d.keep)),
    maxAgeDays: fromEnv(BACKUP_ENV.maxAgeDays, d.maxAgeDays),
    maxBytes: Math.round(fromEnv(BACKUP_ENV.maxBytes, d.maxBytes / (1024 * 1024)) * 1024 * 1024),
    ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)),
  };
}

/** After SIGTERM/SIGINT the service stops gracefully for at most this long, then exits regardless. */
export const STOP_DEADLINE_MS = 5000;
