/**
 * The service's configuration, in one place: defaults, the data directory, and every `SHEETPORT_*` environment
 * variable. This is the only module that reads them: `readConfig()` turns the environment into one typed
 * `SheetPortConfig` (invalid values fall back to the defaults), and the entry points (the CLI, `startServer`, the
 * tray app) pass it, or the parts they need, down. Tests build a config instead of setting variables. The CLI,
 * the server and the tray app all resolve the data directory here so they share one database.
 *
 * The variables (docs/api.md and the README say what each one is for):
 * - SHEETPORT_DATA_DIR: the data directory (below `--data-dir`); SHEETPORT_PORT: the tray app's port (the CLI has
 *   `--port`); SHEETPORT_DEBUG: CLI errors print their stack; SHEETPORT_KEY: the API key `sheetport mcp` acts with
 * - SHEETPORT_MAX_FILE_MB, _MAX_INFLATED_MB, _PARSE_TIMEOUT_MS, _PARSE_MEMORY_MB, _MAX_CELLS, _MAX_TEXT_MB: file limits
 * - SHEETPORT_BACKUPS_KEEP, _BACKUPS_MAX_AGE_DAYS, _BACKUPS_MAX_MB: backups of local workbooks
 * - SHEETPORT_MIN_FREE_MB: free space a write needs; SHEETPORT_DELIVERY_CLAIM_MS (earlier _LEASE_MS): a claim's time
 * - SHEETPORT_LOG_MAX_MB, SHEETPORT_LOG_FILES: rotation of the logs
 * - SHEETPORT_SECRETS: where a new data dir keeps its secrets (file, keychain, auto)
 * - SHEETPORT_DATABASE_URL, _SECRET_KEY, _SECRET_KEY_FILE, _LEASE_TTL_MS: team mode (team-config.ts)
 * - SHEETPORT_MCP_MAX_ROWS, _MAX_CELL_CHARS: the MCP server's answers (mcp-config.ts)
 * - SHEETPORT_GOOGLE_API_ROOT, _OAUTH_ROOT, _MAX_AGE_MS, _READS_PER_MINUTE, _WRITES_PER_MINUTE, _CLIENT_ID,
 *   _CLIENT_SECRET, _PASSPHRASE: the Google Sheets kind
 */
import os from 'node:os';
import path from 'node:path';
import { type McpSettings, mcpFrom } from './mcp-config.ts';
import { TEAM_ENV, type TeamConfig, teamFrom } from './team-config.ts';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';

/** Folder name under the OS app-data directory; matches the Electron app name so `app.getPath('userData')` agrees. */
export const APP_NAME = 'SheetPort';

/** Environment variable that overrides the data directory (below the `--data-dir` flag). */
export const DATA_DIR_ENV = 'SHEETPORT_DATA_DIR';

export interface ResolveDataDirOptions {
  flag?: string | undefined; // `--data-dir`, if given
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

/** This machine's OS app-data folder for SheetPort (no flag, no SHEETPORT_DATA_DIR). */
export function osDataDir(): string {
  return defaultDataDir(process.platform, process.env, os.homedir());
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
 * bounded amount of time and memory, while any workbook Excel can save (1,048,576 rows, cells of up to 32,767
 * characters) is read as far as the parse memory allows. docs/security.md ("Files SheetPort reads") gives the
 * reasons for each default.
 */
export interface FileLimits {
  /** Largest file read at all, in bytes (the size on disk, compressed for .xlsx; a CSV is also held to the
   * longest text the parser can hold, guard/read-regular-file.ts). */
  maxFileBytes: number;
  /** Largest total uncompressed size of an .xlsx package's parts, in bytes. */
  maxInflatedBytes: number;
  /** Most times larger than their packed bytes the parts of an .xlsx may unpack to (past one small allowance). */
  maxPartRatio: number;
  /** Longest a parse may run before it is stopped, in ms. */
  parseTimeoutMs: number;
  /** Heap cap of the thread that parses a file, in MB. */
  parseMemoryMb: number;
  /** Most cells a workbook's tabs may span together once read (each tab's header to last row, times its columns). */
  maxCells: number;
  /** Most characters of text one tab may hold once read (a text shared by many cells counts each time). */
  maxTextChars: number;
}

const MB = 1024 * 1024;

/**
 * What one cell and one character of text cost at the peak of a first read, in bytes of memory: a cell is
 * scanned, laid in the dense grid the parse thread sends, copied into the service's rows and its baseline
 * (measured: 1,465 MB at the peak for a 1,048,575-row, 10-column tab, about 140 bytes a cell); a character is
 * held as text in both threads and once more per cell that shows it when the tab is stored.
 */
const BYTES_PER_CELL = 128;
const BYTES_PER_TEXT_CHAR = 8;
/** An unpacked byte is held twice while its part is read (the bytes, then the text the scanner walks). */
const PARSE_MEMORY_PER_INFLATED_BYTE = 2;

/**
 * The limits that follow from the parse memory (`parseMemoryMb`): the cells, text and unpacked bytes a read
 * may reach before that memory runs out. Raising SHEETPORT_PARSE_MEMORY_MB raises them with it.
 */
export function memoryBudget(
  parseMemoryMb: number,
): Pick<FileLimits, 'maxCells' | 'maxTextChars' | 'maxInflatedBytes'> {
  const bytes = parseMemoryMb * MB;
  return {
    maxCells: Math.floor(bytes / BYTES_PER_CELL),
    maxTextChars: Math.floor(bytes / BYTES_PER_TEXT_CHAR),
    maxInflatedBytes: Math.floor(bytes / PARSE_MEMORY_PER_INFLATED_BYTE),
  };
}

const DEFAULT_PARSE_MEMORY_MB = 4096;

/**
 * With 4 GB of parse memory: 33,554,432 cells (1,048,576 rows by 32 columns), 536,870,912 characters of text,
 * 2 GB unpacked. Measured on a 1,048,575-row, 10-column workbook written like Excel's: 46 MB on disk, 332 MB
 * unpacked (7 times its packed size), under 512 MB of parse heap. The largest ratio a part reaches in 497
 * workbooks saved by Excel is 56 (a comments part); a worksheet's cell references keep its XML under about 25
 * even when every cell is alike, and shared strings of long, nearly identical texts reach about 130. A zip
 * bomb aims at deflate's own maximum, about 1,000.
 */
export const DEFAULT_FILE_LIMITS: Readonly<FileLimits> = {
  maxFileBytes: 512 * MB,
  maxPartRatio: 200,
  parseTimeoutMs: 60_000,
  parseMemoryMb: DEFAULT_PARSE_MEMORY_MB,
  ...memoryBudget(DEFAULT_PARSE_MEMORY_MB),
};

/** The environment variables that override each file limit (sizes in MB). */
export const FILE_LIMIT_ENV = {
  maxFileBytes: 'SHEETPORT_MAX_FILE_MB',
  maxInflatedBytes: 'SHEETPORT_MAX_INFLATED_MB',
  maxPartRatio: 'SHEETPORT_MAX_ZIP_RATIO',
  parseTimeoutMs: 'SHEETPORT_PARSE_TIMEOUT_MS',
  parseMemoryMb: 'SHEETPORT_PARSE_MEMORY_MB',
  maxCells: 'SHEETPORT_MAX_CELLS',
  /** In millions of characters. */
  maxTextChars: 'SHEETPORT_MAX_TEXT_MB',
} as const;

/**
 * Defaults, overridden by any valid positive number in the environment; `overrides` win over both. The limits
 * that follow from the parse memory follow a parse memory set in the environment too, unless set themselves.
 */
export function resolveFileLimits(
  overrides: Partial<FileLimits> = {},
  env: NodeJS.ProcessEnv = process.env,
): FileLimits {
  const fromEnv = (name: string, scale: number, fallback: number): number => {
    const n = Number(env[name]);
    return env[name] && Number.isFinite(n) && n > 0 ? Math.round(n * scale) : fallback;
  };
  const d = DEFAULT_FILE_LIMITS;
  const parseMemoryMb = fromEnv(FILE_LIMIT_ENV.parseMemoryMb, 1, d.parseMemoryMb);
  const budget = memoryBudget(parseMemoryMb);
  return {
    maxFileBytes: fromEnv(FILE_LIMIT_ENV.maxFileBytes, MB, d.maxFileBytes),
    maxInflatedBytes: fromEnv(FILE_LIMIT_ENV.maxInflatedBytes, MB, budget.maxInflatedBytes),
    maxPartRatio: fromEnv(FILE_LIMIT_ENV.maxPartRatio, 1, d.maxPartRatio),
    parseTimeoutMs: fromEnv(FILE_LIMIT_ENV.parseTimeoutMs, 1, d.parseTimeoutMs),
    parseMemoryMb,
    maxCells: fromEnv(FILE_LIMIT_ENV.maxCells, 1, budget.maxCells),
    maxTextChars: fromEnv(FILE_LIMIT_ENV.maxTextChars, 1_000_000, budget.maxTextChars),
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

/** Free space (MB) a write needs on the data dir's file system unless SHEETPORT_MIN_FREE_MB says otherwise. */
export const DEFAULT_MIN_FREE_MB = 32;

/** Every environment variable SheetPort reads, by the setting it feeds. */
export const ENV = {
  dataDir: DATA_DIR_ENV,
  port: 'SHEETPORT_PORT',
  debug: 'SHEETPORT_DEBUG',
  apiKey: 'SHEETPORT_KEY',
  minFreeMb: 'SHEETPORT_MIN_FREE_MB',
  deliveryClaimMs: 'SHEETPORT_DELIVERY_CLAIM_MS',
  deliveryClaimMsEarlier: 'SHEETPORT_DELIVERY_LEASE_MS', // its earlier name, read when the new one is not set
  logMaxMb: 'SHEETPORT_LOG_MAX_MB',
  logFiles: 'SHEETPORT_LOG_FILES',
  secrets: 'SHEETPORT_SECRETS',
  ...TEAM_ENV,
  googleApiRoot: 'SHEETPORT_GOOGLE_API_ROOT',
  googleOauthRoot: 'SHEETPORT_GOOGLE_OAUTH_ROOT',
  googleMaxAgeMs: 'SHEETPORT_GOOGLE_MAX_AGE_MS',
  googleReadsPerMinute: 'SHEETPORT_GOOGLE_READS_PER_MINUTE',
  googleWritesPerMinute: 'SHEETPORT_GOOGLE_WRITES_PER_MINUTE',
  googleClientId: 'SHEETPORT_GOOGLE_CLIENT_ID',
  googleClientSecret: 'SHEETPORT_GOOGLE_CLIENT_SECRET',
  googlePassphrase: 'SHEETPORT_GOOGLE_PASSPHRASE',
} as const;

/** What the environment may tell the Google Sheets kind; its own defaults (sources/google/) fill the rest. */
export interface GoogleConfig {
  /** Sheets and Drive API root (Google's when unset; the fake's in tests). */
  apiRoot?: string;
  /** OAuth authorize/token/revoke root (the API root when only that is set, else Google's). */
  oauthRoot?: string;
  /** Age (ms) past which the cached version is checked again on the next read (the kind's default: 5 s). */
  maxAgeMs?: number;
  /** Sheets reads per minute per account SheetPort allows itself (the kind's default: 60). */
  readsPerMinute?: number;
  /** Sheets writes per minute per account (the kind's default: 60). */
  writesPerMinute?: number;
  /** The OAuth client (a "Desktop app" client) a login goes through. */
  clientId?: string;
  clientSecret?: string;
  /** Opens (and seals) a Google login kept encrypted in the secrets file. */
  passphrase?: string;
}

/** How the logs rotate: at `maxBytes`, keeping `keepFiles` rotated files (unset: logs/rotating-log.ts's defaults). */
export interface LogRotation {
  maxBytes?: number;
  keepFiles?: number;
}

/** Where a new data dir keeps its secrets: forced to the file or the keychain, or `auto` (secrets/choose.ts). */
export type SecretsChoice = 'auto' | 'file' | 'keychain';

/** Everything the environment configures, typed and checked. Build one with `readConfig`, or by hand in tests. */
export interface SheetPortConfig {
  /** SHEETPORT_DATA_DIR, resolved; unset when the variable is (the `--data-dir` flag and the OS folder decide). */
  dataDir?: string;
  /** The tray app's port; unset: DEFAULT_PORT. */
  port?: number;
  /** CLI errors print their stack. */
  debug: boolean;
  /** SHEETPORT_KEY: the API key `sheetport mcp` acts with (an MCP client's config sets it); unset: none. */
  apiKey?: string;
  fileLimits: FileLimits;
  /** Backup limits per file; the folder is `<data dir>/backups` (backupPolicyFor). */
  backups: Omit<BackupPolicy, 'dir'>;
  /** Writes are refused (507) while the data dir's disk has less free than this; 0 turns the check off. */
  minFreeBytes: number;
  /** How long a claimed webhook delivery is held before another start may send it; unset: the worker's default. */
  deliveryClaimMs?: number;
  logs: LogRotation;
  /** As SHEETPORT_SECRETS says; a value other than file, keychain or auto is kept as given and refused where a
   * data dir's secrets are first chosen (secrets/choose.ts), so a command that never opens them is not stopped. */
  secrets: string;
  google: GoogleConfig;
  /** Team mode: the shared PostgreSQL database every store lives in (team-config.ts); unset: SQLite. */
  team?: TeamConfig;
  mcp: McpSettings;
}

const defined = <T extends object>(values: T): Partial<T> =>
  Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;

/** A number 0 or more from the environment; unset, empty or invalid: undefined. */
function nonNegative(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  const n = Number(raw);
  return raw && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** A number over 0 from the environment, times `scale`; unset, empty or invalid: undefined. */
function positive(env: NodeJS.ProcessEnv, name: string, scale = 1): number | undefined {
  const raw = env[name];
  const n = Number(raw);
  return raw && Number.isFinite(n) && n > 0 ? n * scale : undefined;
}

/** SHEETPORT_MIN_FREE_MB (any finite number; below 0 counts as 0), else the default. */
function minFreeFrom(env: NodeJS.ProcessEnv): number {
  const raw = env[ENV.minFreeMb];
  const mb = raw && Number.isFinite(Number(raw)) ? Number(raw) : DEFAULT_MIN_FREE_MB;
  return Math.max(0, mb) * 1024 * 1024;
}

function googleFrom(env: NodeJS.ProcessEnv): GoogleConfig {
  return defined({
    apiRoot: env[ENV.googleApiRoot] || undefined,
    oauthRoot: env[ENV.googleOauthRoot] || undefined,
    maxAgeMs: nonNegative(env, ENV.googleMaxAgeMs),
    readsPerMinute: nonNegative(env, ENV.googleReadsPerMinute),
    writesPerMinute: nonNegative(env, ENV.googleWritesPerMinute),
    clientId: env[ENV.googleClientId] || undefined,
    clientSecret: env[ENV.googleClientSecret] || undefined,
    passphrase: env[ENV.googlePassphrase] || undefined,
  });
}

/** SHEETPORT_SECRETS as given (trimmed), `auto` when unset; secrets/choose.ts checks it. */
export function secretsChoice(env: NodeJS.ProcessEnv = process.env): string {
  return env[ENV.secrets]?.trim() || 'auto';
}

/** The configuration the environment gives (`process.env` unless another is passed; `databaseUrl`, `serve
 * --database`, over its SHEETPORT_DATABASE_URL); invalid values fall back. */
export function readConfig(env: NodeJS.ProcessEnv = process.env, databaseUrl?: string): SheetPortConfig {
  const { dir: _dir, ...backups } = resolveBackupPolicy('', {}, env);
  const port = positive(env, ENV.port);
  const claim = positive(env, ENV.deliveryClaimMs) ?? positive(env, ENV.deliveryClaimMsEarlier);
  return {
    ...(env[DATA_DIR_ENV] ? { dataDir: path.resolve(env[DATA_DIR_ENV]) } : {}),
    ...(port !== undefined ? { port } : {}),
    debug: Boolean(env[ENV.debug]),
    ...defined({ apiKey: env[ENV.apiKey]?.trim() || undefined }),
    fileLimits: resolveFileLimits({}, env),
    backups,
    minFreeBytes: minFreeFrom(env),
    ...(claim !== undefined ? { deliveryClaimMs: claim } : {}),
    logs: defined({ maxBytes: positive(env, ENV.logMaxMb, MB), keepFiles: positive(env, ENV.logFiles) }),
    secrets: secretsChoice(env),
    google: googleFrom(env),
    ...teamFrom(databaseUrl ? { ...env, [TEAM_ENV.databaseUrl]: databaseUrl } : env),
    ...mcpFrom(env),
  };
}

/** The configuration with no variable set. */
export const defaultConfig = (): SheetPortConfig => readConfig({});

/** The backup policy of `dataDir` under `settings`, with `overrides` (fields left undefined are ignored) on top. */
export function backupPolicyFor(
  dataDir: string,
  settings: Omit<BackupPolicy, 'dir'>,
  overrides: Partial<Omit<BackupPolicy, 'dir'>> = {},
): BackupPolicy {
  return { ...settings, ...defined(overrides), dir: path.join(dataDir, BACKUPS_DIR) };
}

/** `limits` with `overrides` (fields left undefined are ignored) on top. */
export function fileLimitsWith(limits: FileLimits, overrides: Partial<FileLimits> = {}): FileLimits {
  return { ...limits, ...defined(overrides) };
}
