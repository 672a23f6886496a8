/**
 * What a kind of source (local workbook files, Google Sheets, ...) tells the rest of the service: how to read a
 * location a user typed, how to open a Source on it, and how to describe itself. Every kind is one folder under
 * sources/ plus one line in sources/index.ts; nothing outside sources/ names a kind.
 */
import type { BackupPolicy, FileLimits, GoogleConfig } from '../config.ts';
import type { Timers } from '../lib/timers.ts';
import type { SecretsProvider } from '../secrets/provider.ts';
import type { KeptReadsPolicy } from './kept-reads.ts';
import type { Source } from './source.ts';

/** Settings a source may use when it is opened; each kind reads the ones that concern it. */
export interface SourceOptions {
  /** Bounds on reading local files (config.ts). */
  fileLimits?: Partial<FileLimits>;
  /** How often a source checks for outside changes when it has no cheaper signal (ms). */
  pollMs?: number;
  timers?: Timers;
  log?: (message: string, err?: unknown) => void;
  /** The data dir's secrets: where a remote kind finds its account tokens. */
  secrets?: SecretsProvider;
  /** The service's epoch-ms clock: remote sources date their copies and pace their quota by it. */
  now?: () => number;
  /** Google Sheets endpoints, pacing and OAuth client (config.ts); unset fields take Google's defaults. */
  google?: GoogleSettings;
  /** Where and how many previous versions of a local file a write keeps (config.ts); none when unset. */
  backups?: BackupPolicy;
  /**
   * Awaited by each write to a local file once its new bytes are ready, just before the file is replaced: a test
   * holds a write there to see what reads answer meanwhile. Default: nothing.
   */
  beforeFileReplace?: (filePath: string) => Promise<void>;
  /** Team mode: a remote kind's calls counted for the whole team, so its instances share an account's quota. */
  sharedCalls?: SharedCalls;
  /**
   * Hears how far a local file's read has come, 0 to 1, with the file's path, while it is read (an `.xlsx`
   * sheet's bytes scanned, a chunk at a time): `sheetport connect`'s progress bar, `serve`'s lines.
   */
  onReadProgress?: (fraction: number, filePath: string) => void;
  /**
   * A serving process: a large workbook's write document is made behind each read (workbook/document-ahead.ts),
   * so its first write is as fast as the next. Unset for a command that reads a file once and exits (`connect`).
   */
  prepareWritesAhead?: boolean;
  /**
   * Where a local file's read is kept by its content (workbook/guard/kept-read.ts), so the next start reads it
   * back instead of parsing the same bytes: `<data dir>/reads`. Unset: every start parses.
   */
  keptReads?: KeptReadsPolicy;
}

/**
 * A rolling one-minute window of calls counted where every instance of a team sees it (team mode's database):
 * one call of `subject` is spent now if fewer than `limit` were spent in the last minute; otherwise nothing is,
 * and the answer says how long until one may be.
 */
export type SharedCalls = (
  subject: string,
  limit: number,
  nowMs: number,
) => Promise<{ taken: boolean; msUntilFree: number }>;

/** What config.ts reads from the environment (endpoints, pacing, the OAuth client, the passphrase), and more. */
export interface GoogleSettings extends GoogleConfig {
  /** How long (ms) a read waits for that check before it is served from the in-memory copy (default 2 s). */
  waitMs?: number;
  /** One request's deadline (ms) before it counts as timed out. */
  timeoutMs?: number;
  /** First retry delay (ms); later ones double, with jitter. */
  retryBaseMs?: number;
  /** Which stored login to use (`google-token:<account>`); the default account of the last login when unset. */
  account?: string;
  /** How long a write past the budget waits for a slot before 503 (ms; 5 s). */
  writeQueueMs?: number;
  /** Epoch-ms clock (tests inject one, with `timers`); SourceOptions.now when unset. */
  now?: () => number;
}

/** A location as the user gave it, made canonical: the same spreadsheet named two ways is one location. */
export interface ResolvedLocation {
  location: string;
  /** A name for a new connection (a file name, a spreadsheet title). */
  name: string;
}

export interface SourceKind {
  /** Stored in `connections.source_kind`. */
  readonly name: string;
  /** Prefix of the spreadsheet ids SheetPort makes up for this kind (`wb_`). */
  readonly idPrefix: string;
  /** One line for help texts: what a location of this kind is. */
  readonly describe: string;
  /** What a spreadsheet of this kind is, as a noun phrase for help texts ("a Google Sheets spreadsheet"). */
  readonly label: string;
  /** Whether `input` (what a user typed, with no kind named) looks like a location of this kind. */
  claims(input: string): boolean;
  /** Canonical location and a display name; throws AppError (not_found, invalid_parameter, ...) for bad input. */
  resolveLocation(input: string): Promise<ResolvedLocation>;
  open(location: string, options: SourceOptions): Source;
  /** The public spreadsheet id for a location, when the kind has one of its own (Google's id); else made up. */
  spreadsheetIdFor?(location: string): string;
  /** A small example spreadsheet in `dir` for `npm start`, if this kind can make one locally. */
  createDemo?(dir: string): Promise<ResolvedLocation>;
  /** Logins of a kind that acts for a user account (Google); absent for local files. */
  readonly accounts?: KindAccounts;
  /** A service is starting, with the options its sources will be opened with: start ahead what a first read needs
   * (a local file's parse thread, which loads its modules meanwhile). */
  warmUp?(options: SourceOptions): void;
  /** The service is stopping: end work under way that could outlast its stop deadline (a long parse). */
  stopWork?(): void;
  /** Its connection is gone: drop what reading `location` kept for a later start (a local file's kept read). */
  forgetKept?(location: string, options: SourceOptions): Promise<void>;
  /**
   * Whether the spreadsheet at `location` is one its owner made read-only (a local file without write permission):
   * writes to it are refused, and the dashboard says so. Absent: never.
   */
  readOnly?(location: string): boolean;
  /** The previous versions its writes keep, for a kind that replaces local files (`sheetport backups`). */
  readonly backups?: KindBackups;
}

/** One kept version of a file: what `sheetport backups list` shows. */
export interface BackupEntry {
  /** `<file id>-<time>`: what `sheetport backups restore` takes. */
  id: string;
  /** The file it is a version of (absolute); null when the backup folder no longer says. */
  path: string | null;
  /** Where the version itself is kept. */
  file: string;
  /** When it was backed up (epoch ms): the moment a write replaced it. */
  time: number;
  bytes: number;
}

export interface RestoreOutcome {
  /** The version put back. */
  restored: BackupEntry;
  /** The backup of the version the restore replaced (restoring it undoes the restore); null if there was no file. */
  replaced: BackupEntry | null;
}

export interface KindBackups {
  /** Every kept version, newest first; only those of `files` (absolute paths) when given. */
  list(policy: BackupPolicy, files?: readonly string[]): Promise<BackupEntry[]>;
  /**
   * Put a version back at its file's path, atomically, after keeping the current version (a failure to keep it
   * aborts the restore). not_found for an unknown id; locked while an office program has the file open.
   */
  restore(
    policy: BackupPolicy,
    id: string,
    log?: (message: string, err?: unknown) => void,
  ): Promise<RestoreOutcome>;
}

export interface AccountLogin {
  secrets: SecretsProvider;
  /** Print the consent URL, or open it in a browser. */
  showConsentUrl: (url: string) => void;
  /** The user agreed to keep the login in the secrets file (encrypted) where no OS keychain exists. */
  allowFileStorage: boolean;
  /** Asked only when the login goes into the secrets file. */
  passphrase: () => Promise<string>;
  /** The settings sources are opened with; the kind takes its own part (Google's endpoints and OAuth client). */
  sources?: SourceOptions;
  timeoutMs?: number;
  /** Ends a login still waiting for the browser (the service is stopping). */
  signal?: AbortSignal;
}

export interface LoginOutcome {
  account: string;
  /** 'database': team mode's database, sealed with the team's key (store-pg/secrets.ts). */
  storage: 'keychain' | 'encrypted_file' | 'database';
  where: string;
}

export interface AccountLogout {
  secrets: SecretsProvider;
  /** The default account when unset. */
  account?: string;
  passphrase?: string;
  /** As AccountLogin's. */
  sources?: SourceOptions;
}

export interface LogoutOutcome {
  account: string;
  revoked: 'revoked' | 'already_revoked' | 'not_possible';
}

export interface KindAccounts {
  /** Who holds the accounts, for messages ("Google"). */
  readonly provider: string;
  /** Where a user ends SheetPort's access by hand when the provider could not be told at logout. */
  readonly permissionsUrl: string;
  /** The environment variable holding the passphrase of a login kept in the secrets file (for messages). */
  readonly passphraseEnv: string;
  /** That passphrase, as the configuration given to sources carries it; undefined when it is not set. */
  passphrase(options: SourceOptions): string | undefined;
  login(request: AccountLogin): Promise<LoginOutcome>;
  list(secrets: SecretsProvider): { account: string; default: boolean }[];
  logout(request: AccountLogout): Promise<LogoutOutcome>;
}
