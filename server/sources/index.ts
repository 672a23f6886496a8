/**
 * The one registry of source kinds. Adding a kind is a folder under sources/ and one line in KINDS; the rest of
 * the service reaches sources only through this module and the Source interface, and never names a kind.
 */
import type { SheetPortConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import { googleKind } from './google/kind.ts';
import type { KindAccounts, KindBackups, ResolvedLocation, SourceKind, SourceOptions } from './kind.ts';
import type { Source } from './source.ts';
import { workbookKind } from './workbook/kind.ts';

// Google first: it claims only spreadsheet ids and Sheets URLs that are not local files.
const KINDS: readonly SourceKind[] = [googleKind, workbookKind];

export type {
  BackupEntry,
  KindAccounts,
  KindBackups,
  LoginOutcome,
  LogoutOutcome,
  ResolvedLocation,
  RestoreOutcome,
  SourceKind,
  SourceOptions,
} from './kind.ts';

/** The kind stored under `name` (a connection's `sourceKind`). */
export function sourceKind(name: string): SourceKind {
  const kind = KINDS.find((k) => k.name === name);
  if (!kind) {
    throw new AppError(
      'invalid_parameter',
      `Unknown source kind '${name}'; known: ${kindNames().join(', ')}.`,
      {
        parameter: 'kind',
      },
    );
  }
  return kind;
}

export function kindNames(): string[] {
  return KINDS.map((k) => k.name);
}

/** The account logins of the kind named (`sheetport login google`); invalid_parameter when it has none. */
export function accountsOf(name: string): KindAccounts {
  const accounts = sourceKind(name).accounts;
  if (!accounts) {
    const withAccounts = KINDS.filter((k) => k.accounts).map((k) => k.name);
    throw new AppError(
      'invalid_parameter',
      `'${name}' has no accounts to log in to; try ${withAccounts.join(', ')}.`,
      {
        parameter: 'kind',
      },
    );
  }
  return accounts;
}

/** The backups of the kind that keeps them (local files): what `sheetport backups` lists and restores. */
export function localBackups(): KindBackups {
  const kind = KINDS.find((k) => k.backups);
  if (!kind?.backups) throw new AppError('invalid_parameter', 'No source kind keeps backups.');
  return kind.backups;
}

/** The kind whose accounts `sheetport accounts` manages when none is named: the first that has any. */
export function defaultAccountsKind(): string {
  const kind = KINDS.find((k) => k.accounts);
  if (!kind) throw new AppError('invalid_parameter', 'No source kind has accounts.');
  return kind.name;
}

/** The kind a user means: the one named, else the first that claims the input. */
export function kindFor(input: string, named?: string): SourceKind {
  if (named !== undefined) return sourceKind(named);
  const kind = KINDS.find((k) => k.claims(input));
  if (!kind) {
    throw new AppError(
      'invalid_parameter',
      `Cannot tell what '${input}' is. Give ${KINDS.map((k) => k.describe).join(', or ')}.`,
      { parameter: 'location' },
    );
  }
  return kind;
}

/** The part of the configuration (config.ts) sources are opened with: file limits and each kind's settings. */
export function sourceSettings(config: SheetPortConfig): Pick<SourceOptions, 'fileLimits' | 'google'> {
  return { fileLimits: config.fileLimits, google: config.google };
}

/** Open a Source on a registered connection (or anything with its kind and location). */
export function openSource(
  ref: { sourceKind: string; location: string },
  options: SourceOptions = {},
): Source {
  return sourceKind(ref.sourceKind).open(ref.location, options);
}

/** The first kind that can make a demo spreadsheet locally makes one in `dir`. */
export async function createDemoSpreadsheet(dir: string): Promise<ResolvedLocation & { kind: SourceKind }> {
  const kind = KINDS.find((k) => k.createDemo);
  if (!kind?.createDemo) throw new Error('no source kind can make a demo spreadsheet');
  return { ...(await kind.createDemo(dir)), kind };
}

/** Whether a connection's spreadsheet was made read-only by its owner (its writes are refused). */
export function isReadOnly(ref: { sourceKind: string; location: string }): boolean {
  return sourceKind(ref.sourceKind).readOnly?.(ref.location) ?? false;
}

/** A service is starting with `config`: every kind starts ahead what its first read needs (SourceKind.warmUp). */
export function warmSourceWork(config: SheetPortConfig): void {
  for (const kind of KINDS) kind.warmUp?.(sourceSettings(config));
}

/** The service is stopping: every kind ends the work under way that could outlast the stop deadline. */
export function stopSourceWork(): void {
  for (const kind of KINDS) kind.stopWork?.();
}
