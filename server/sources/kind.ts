/**
 * What a kind of source (local workbook files, Google Sheets, ...) tells the rest of the service: how to read a
 * location a user typed, how to open a Source on it, and how to describe itself. Every kind is one folder under
 * sources/ plus one line in sources/index.ts; nothing outside sources/ names a kind.
 */
import type { FileLimits } from '../config.ts';
import type { Timers } from '../lib/timers.ts';
import type { Source } from './source.ts';

/** Settings a source may use when it is opened; each kind reads the ones that concern it. */
export interface SourceOptions {
  /** Bounds on reading local files (config.ts). */
  fileLimits?: Partial<FileLimits>;
  /** How often a source checks for outside changes when it has no cheaper signal (ms). */
  pollMs?: number;
  timers?: Timers;
  log?: (message: string, err?: unknown) => void;
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
  /** Whether `input` (what a user typed, with no kind named) looks like a location of this kind. */
  claims(input: string): boolean;
  /** Canonical location and a display name; throws AppError (not_found, invalid_parameter, ...) for bad input. */
  resolveLocation(input: string): Promise<ResolvedLocation>;
  open(location: string, options: SourceOptions): Source;
  /** A small example spreadsheet in `dir` for `npm start`, if this kind can make one locally. */
  createDemo?(dir: string): Promise<ResolvedLocation>;
}
