/**
 * The one interface every spreadsheet source implements: each kind registered in sources/index.ts (local
 * workbook files, Google Sheets) opens one.
 * A Spreadsheet (spreadsheets/) is the only thing that talks to a Source; it never asks which kind it is.
 */
import type { AppError } from '../errors.ts';

/** A cell value as the API returns it: numbers, booleans, text, ISO 8601 date/time strings, or null when empty. */
export type CellValue = string | number | boolean | null;

/** One tab as read from the source, header already resolved (trimmed, blank -> column letter, duplicates suffixed). */
export interface TabSnapshot {
  /** Stable id of the tab inside its spreadsheet (xlsx sheetId, Google sheetId); survives renames. */
  sourceSheetId: string;
  name: string;
  /** Resolved header names, one per column, unique. */
  header: string[];
  /** 1-based spreadsheet row number of the header row (0 when the tab is empty and has no header). */
  headerRow: number;
  /** Typed values of each data row, `typed[n-1]` is API row n (spreadsheet row headerRow + n). Same length as header. */
  typed: CellValue[][];
  /** The text the sheet displays for each cell, parallel to `typed` ('' for empty cells). */
  formatted: string[][];
  /** `typed` with each formula cell's formula (`=B2*C2`) in its place, where the source knows formulas. */
  readonly withFormulas?: CellValue[][];
  /** While a tab just read is still making its row arrays: read rows through tab-rows.ts, not `typed`. */
  readonly onDemand?: RowsOnDemand;
}

/** Rows made as they are asked for, and all of them behind (paced). */
export interface RowsOnDemand {
  readonly rowCount: number;
  /** Row `index` (0-based, below rowCount), made now if not made yet. */
  row(index: number): CellValue[];
  /** The array `typed` is once every row is made (the same array from the start): caches key by it. */
  readonly owner: CellValue[][];
  /**
   * Settles once every row is made, or once the rows are no longer made behind (`stopBehind`): those not made yet
   * are then made when read (`typed` makes them all at once).
   */
  readonly complete: Promise<void>;
  /** No more rows made behind the first answers: a read that answers once and is dropped (a connect) needs none. */
  stopBehind(): void;
}

export interface SpreadsheetSnapshot {
  /** Name shown to users (file name, or Google spreadsheet title). */
  title: string;
  /** A token that changes whenever the source content changes (file mtime+size, Drive modifiedTime). */
  version: string;
  tabs: TabSnapshot[];
}

/** A value as a client may write it. Strings starting with '=' are formulas only when formulas are allowed. */
export type CellInput = string | number | boolean | null;

export type Mutation =
  | { op: 'append'; values: Record<string, CellInput> }
  | { op: 'update'; row: number; values: Record<string, CellInput> }
  | { op: 'delete'; row: number };

export interface WriteOptions {
  /** Key may write formulas: a string starting with '=' becomes a formula instead of text. */
  allowFormulas: boolean;
  /** `?input=user_entered`: strings are parsed as the sheet would (numbers, booleans, dates). */
  userEntered: boolean;
  /**
   * Called with the freshly read tab (after any outside change was loaded) before anything is written,
   * e.g. to check `If-Match`. Throwing aborts the write with nothing changed.
   */
  precondition?: (tab: TabSnapshot) => void;
  /**
   * The write's mutations worked out from the freshly read tab, replacing the ones it was given: a write by key
   * (an upsert finds its rows in the tab as it is when the write runs, so no change slips in between).
   */
  mutationsFor?: (tab: TabSnapshot) => Mutation[];
  /**
   * The caller calls the result's `undo` (`keep` or `revert`) once it knows whether the write stays (the Spreadsheet
   * does, after recording). Unset: a source lets go of what an undo would need at once.
   */
  undoable?: boolean;
}

/** One write of one tab: its mutations, all or none. */
export interface SourceWrite {
  sourceSheetId: string;
  mutations: Mutation[];
  options: WriteOptions;
}

/** What a watcher waits for, as a source that pays for its checks may want to know. */
export interface WatchInterest {
  /** Something (a webhook) subscribes to this spreadsheet's changes, read or not. */
  subscribed(): boolean;
}

export interface WriteResult {
  appended: number;
  updated: number;
  deleted: number;
  /** The spreadsheet as it is after the write (the Spreadsheet's copy is replaced by this). */
  snapshot: SpreadsheetSnapshot;
  /**
   * The spreadsheet the write was applied on, when the source read it anew for this write: it may hold a change
   * made outside SheetPort (a save landing while the write was prepared) that is recorded before the write's own.
   */
  before?: SpreadsheetSnapshot;
  /** How to take the write back, from a source that can (a local file); absent where it cannot (Google). */
  undo?: WriteUndo;
}

/**
 * A write's way back, for when its change could not be recorded: the Spreadsheet calls exactly one of the two.
 */
export interface WriteUndo {
  /**
   * Put back the version the write replaced, only if the source still holds what the write left (never over a
   * save made since). Resolves whether it did.
   */
  revert(): Promise<boolean>;
  /** The write stays: let go of what `revert` would have needed. */
  keep(): void;
}

/** A source's own limits (capabilities as data: the writer never has to guess). */
export interface CellLimits {
  /** Longest text a cell holds, in UTF-16 code units as the sheet counts them (Excel: 32,767). */
  maxCellChars: number;
  /** Widest row the tab holds (Excel: 16,384 columns, A..XFD). */
  maxColumns: number;
  /** Last row number a tab holds, the header row and any rows above it included (Excel: 1,048,576). */
  maxRows: number;
  /**
   * Cells the grids of all the spreadsheet's tabs hold together (Google: 10,000,000), where the source knows its
   * grids' sizes; absent where no such limit applies.
   */
  maxCells?: number;
}

/** What a kind of source can do, as data: routes and writers read this instead of asking which kind it is. */
export interface SourceCapabilities {
  /** Formula cells exist and a formulas key can write them. */
  formulas: boolean;
  /** Cells carry formatting that writes keep (styles, number formats). */
  styles: boolean;
  /** What one cell, one row and one tab can hold; writes beyond it are refused before they start. */
  limits: CellLimits;
}

/** How current the content a source last gave is: what the read routes say in `X-Data-Age` and `Warning`. */
export interface SourceFreshness {
  /** Milliseconds since the content was last known to match the source (0 for a local file). */
  ageMs: number;
  /** Known or likely out of date: the source could not be asked (unavailable, over quota) or has newer content. */
  stale: boolean;
}

/** Stop watching. */
export type Unwatch = () => void;

export interface Source {
  /** The registry name of its kind (see sources/index.ts); for logs and records, never for branching. */
  readonly kind: string;
  readonly capabilities: SourceCapabilities;
  /**
   * Cheap change token; equal tokens mean unchanged content. Never costs a network call: a file answers from
   * a stat, a remote source from its last check.
   */
  version(): Promise<string>;
  /** Read every tab, with cell types. */
  read(): Promise<SpreadsheetSnapshot>;
  /**
   * Apply the writes of one turn, in order, each to one tab and atomically: either all its mutations land in the
   * source or none do. Row numbers refer to the tab as the writes before it left it. Each write settles on its
   * own: rejected with an AppError (unknown_field, row_not_found, sheet_not_found, locked, ...) and nothing of it
   * written, an error about one mutation carrying its `index`. The source's owner (the Spreadsheet's turns,
   * spreadsheets/write.ts) hands over one turn at a time: the one queue of a spreadsheet's writes is there, and
   * a source that can save a turn's writes together does (a local file: one replace for all, group commit).
   */
  write(writes: readonly SourceWrite[]): Promise<PromiseSettledResult<WriteResult>[]>;
  /**
   * The refusal a write would meet, when the source can tell from its last read alone, without taking it or
   * waiting for anything (a full sheet's append: a 409 naming the limit); null when it cannot tell or the write
   * may go. Asked only for a write no other waits before, which could make room for it. Optional.
   */
  refusal?(write: SourceWrite): Promise<AppError | null>;
  /**
   * Be told when the content may have changed outside SheetPort (a save in Excel, an edit in the browser).
   * The source decides how it notices (a file watch, a periodic check); the listener re-reads through
   * `version` and `read`. Several listeners may watch one source. `interest` says whether a listener's changes
   * are awaited by more than readers (webhooks): a source whose checks cost requests may check only while
   * they are, or while someone read recently; a file watch costs nothing and ignores it.
   */
  watch(onOutsideChange: () => void, interest?: WatchInterest): Unwatch;
  /**
   * How current the last `version`/`read` answer is. Optional: a source without it (a local file, whose stat is
   * always current) counts as age 0, never stale.
   */
  freshness?(): SourceFreshness;
  /** Release file handles and watches. */
  close(): Promise<void>;
}
