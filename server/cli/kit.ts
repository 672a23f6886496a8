/**
 * What every command file shares: global options, the store opener, output and error printing, option parsers and
 * the JSON shapes of connections and keys. Imports no command file and not cli.ts, so there is no cycle.
 */
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { readConfig, resolveDataDir, type SheetPortConfig } from '../config.ts';
import { openServiceContext, type ServiceContext } from '../context.ts';
import { type ErrorCode, isAppError } from '../errors.ts';
import type { ConnectionRecord } from '../repositories/connections.ts';
import type { Store } from '../repositories/store.ts';
import { openSecretsProvider } from '../secrets/choose.ts';
import type { SecretsProvider } from '../secrets/provider.ts';
import { openSqliteRepositories } from '../store/sqlite-repositories.ts';

/** The options every command takes (declared on the program). */
export interface GlobalOptions {
  dataDir?: string;
  json?: boolean;
}

/** Thrown by command actions; printed as one line. The process exits with `exitCode` (1 unless said). */
export class CliError extends Error {
  readonly code: ErrorCode | 'usage';
  readonly exitCode: number;
  constructor(code: ErrorCode | 'usage', message: string, exitCode = 1) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
  }
}

export function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions>();
}

let config: SheetPortConfig | undefined;

/** What the environment configures (config.ts), read once for every command this process runs. */
export function cliConfig(): SheetPortConfig {
  config ??= readConfig();
  return config;
}

/** `serve --database URL`: this run's configuration names that team database, over SHEETPORT_DATABASE_URL (the
 * environment's other team settings, the secrets key, stay), so everything the command opens uses it. */
export function useTeamDatabase(databaseUrl: string): void {
  config = readConfig(undefined, databaseUrl);
}

// --- stores ------------------------------------------------------------------------------------------------------

/** The repositories and the secrets provider (a kind's account logins): the data dir's, or the team's database. */
export type Stores = Store;

/** Opens the store the environment names (the team's PostgreSQL, else the data dir's SQLite) for one command and
 * closes it once `fn` is done. */
export async function withStores<T>(g: GlobalOptions, fn: (stores: Stores) => Promise<T> | T): Promise<T> {
  const stores = await openStores(g);
  try {
    return await fn(stores);
  } finally {
    await stores.close();
  }
}

/**
 * The named secrets (a kind's account logins, the tunnel's authtoken) for one command: the data dir's secrets
 * provider (the OS keychain or its 0600 file), or in team mode the team's database, sealed with its key, which
 * every instance reads. Written out before the command ends.
 */
export async function withSecrets<T>(
  g: GlobalOptions,
  fn: (secrets: SecretsProvider) => Promise<T> | T,
): Promise<T> {
  if (cliConfig().team) return withStores(g, (stores) => fn(stores.secrets));
  const dataDir = resolveDataDir({ flag: g.dataDir });
  return fn(openSecretsProvider(dataDir, { choice: cliConfig().secrets }));
}

/**
 * The whole service wired on the data dir (stores, sources, spreadsheets, change recorder), without its background
 * work (no delivery, no watching): for commands that must look at a spreadsheet as the service does, such as
 * registering a webhook (which records the tab's content as of now, so the next change is notified).
 */
export async function withServiceAsync<T>(
  g: GlobalOptions,
  fn: (service: ServiceContext) => Promise<T>,
): Promise<T> {
  const dataDir = resolveDataDir({ flag: g.dataDir });
  let service: ServiceContext;
  try {
    service = await openServiceContext({ dataDir, config: cliConfig(), log: () => {} });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new CliError('internal_error', `Cannot open the SheetPort database in ${dataDir}: ${reason}`);
  }
  try {
    return await fn(service);
  } finally {
    await service.close();
  }
}

async function openStores(g: GlobalOptions): Promise<Store> {
  const dataDir = resolveDataDir({ flag: g.dataDir });
  const config = cliConfig();
  try {
    if (!config.team) return openSqliteRepositories(dataDir, { secretsChoice: config.secrets });
    const { openPgStore } = await import('../store-pg/pg-store.ts');
    return await openPgStore(config.team, { dataDir, secretsChoice: config.secrets, log: () => {} });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const where = config.team
      ? 'the team database (SHEETPORT_DATABASE_URL)'
      : `the SheetPort database in ${dataDir}`;
    throw new CliError('internal_error', `Cannot open ${where}: ${reason}`);
  }
}

// --- output ------------------------------------------------------------------------------------------------------

export function print(text: string): void {
  process.stdout.write(`${text}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(header: string[], rows: string[][]): void {
  print(alignedLines([header, ...rows]).join('\n'));
}

/** Rows of cells as lines whose columns line up, two spaces apart (the last column is not padded). */
export function alignedLines(rows: string[][]): string[] {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.max(0, ...rows.map((r) => (r[i] ?? '').length)),
  );
  return rows.map((cells) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** One line on stderr (`{"error":{code,message,reason?}}` with --json); the stack only with SHEETPORT_DEBUG set. */
export function printError(err: unknown, json: boolean): void {
  let code: string = 'internal_error';
  let message: string;
  if (err instanceof CliError || isAppError(err)) {
    code = err.code;
    message = err.message;
  } else if (err instanceof Error) {
    const sqliteBusy = (err as { code?: unknown }).code === 'SQLITE_BUSY';
    message = sqliteBusy
      ? 'The database is busy (another SheetPort process is writing); try again.'
      : err.message;
  } else {
    message = String(err);
  }
  // One line: each line trimmed, blank ones dropped.
  message = message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ');
  // A reason tells a script which of an upstream failure's causes it met (google_access_denied, read_only ...).
  const reason = isAppError(err) && typeof err.details.reason === 'string' ? err.details.reason : undefined;
  if (json)
    process.stderr.write(`${JSON.stringify({ error: { code, message, ...(reason ? { reason } : {}) } })}\n`);
  else process.stderr.write(`error: ${message}\n`);
  if (cliConfig().debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
}

// --- option parsers ----------------------------------------------------------------------------------------------

/** A repeatable option's accumulator. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * A repeatable option that starts empty; `whenNone` is what help shows as its default (what giving none means),
 * so help says it once and never shows the empty list itself.
 */
export function repeatableOption(flags: string, description: string, whenNone: string): Option {
  return new Option(flags, `${description} (repeatable)`).argParser(collect).default([], whenNone);
}

export function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw new InvalidArgumentError('expected a port number from 0 to 65535.');
  }
  return n;
}

export function parseCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('expected a whole number.');
  return n;
}

/** A whole number from `min` to `max`, for commander option parsing. */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}.`);
    }
    return n;
  };
}

// --- JSON shapes -------------------------------------------------------------------------------------------------

export { iso } from '../lib/iso-time.ts';

import { connectionJson as baseConnectionJson } from '../connections/describe.ts';

/** The API's connection shape plus where it lives (the CLI runs on the machine that has the file). */
export function connectionJson(c: ConnectionRecord) {
  return { ...baseConnectionJson(c), location: c.location };
}

export { apiKeyJson as keyJson } from '../limits/key-json.ts';
