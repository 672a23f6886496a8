/**
 * The in-memory form of a workbook file, whatever its kind. The file layer (queue, cache, atomic replace,
 * locks) only talks to this, so .xlsx and .csv share all of it.
 */

import type { FileLimits } from '../../config.ts';
import type { DateTargets } from '../date-cells.ts';
import type { WritePlan } from '../plan.ts';
import type { TabSnapshot, WriteOptions } from '../source.ts';
import type { GridLimits } from '../tab.ts';

/** What a document prepared, as data to keep on disk: the form, and the buffers under its typed arrays. */
export interface PreparedForm {
  payload: unknown;
  buffers: ArrayBuffer[];
}

export interface WorkbookDocument {
  /** The tab's current content, or undefined when no tab has that id. Treat the result as read-only. */
  tab(sourceSheetId: string): TabSnapshot | undefined;
  /** Every tab in order. */
  tabs(): TabSnapshot[];
  /**
   * Reads what a write to the tab will edit without holding the service's thread (a large sheet takes
   * seconds); `apply` would otherwise read it at once. `ahead`: made behind a read for a write that may never
   * come, so only what every write needs (a tab's formulas are looked over by the write itself: what each
   * reads takes memory a file only read need not hold).
   */
  prepare?(sourceSheetId: string, options?: { ahead?: boolean }): Promise<void>;
  /**
   * Every tab a write will edit is prepared and the document is to be kept: let go of what it no longer needs
   * (the file's bytes of a large sheet, now held in another form; threads that prepared it). True when it no
   * longer reads the bytes it was parsed from at all (the caller may then free them at once).
   */
  releasePrepared?(): boolean;
  /**
   * What `prepare` made, to keep on disk for a later start on the very same bytes, or null when there is nothing
   * worth keeping.
   */
  preparedForm?(): PreparedForm | null;
  /**
   * Takes back a `preparedForm` made from the very same bytes, before any `prepare`, which then has nothing
   * left to do; false (nothing taken) when the form does not fit.
   */
  takePreparedForm?(payload: unknown): boolean;
  /**
   * Which cells of a write to the tab show a number as a date, for planning (sources/date-cells.ts); a file type
   * without date cells (.csv) leaves this out.
   */
  dateTargets?(sourceSheetId: string): DateTargets | undefined;
  /**
   * Apply a plan validated against `tab(sourceSheetId)`; must not be called with a plan for other content.
   * Nothing else may use the document until it settles (it may give reads a turn while it computes formulas).
   */
  apply(sourceSheetId: string, plan: WritePlan, options: WriteOptions): void | Promise<void>;
  /**
   * What `apply` left to make when first asked for (a large tab's new rows: a copy of every row), made now. The
   * file layer calls it while the saved file is flushed to disk, so the copy and the flush overlap; `tab` and
   * `tabs` make it anyway when asked first.
   */
  makeLater?(): void;
  /**
   * The complete new file content, as chunks to write one after another: a large workbook's unchanged parts
   * are written from where they are held, never copied into one buffer.
   */
  serialize(): Promise<readonly Uint8Array[]>;
  /**
   * What the writes applied since the last save add after the file's last byte, when that is all they change
   * (the file with these bytes added is exactly what `serialize` gives); null otherwise. A document that cannot
   * tell leaves this out, and every save replaces the file.
   */
  appendedBytes?(): Uint8Array | null;
  /** The file now holds what the document does (saved either way). */
  saved?(): void;
}

/** Parses a file's bytes; its tabs are refused (GridTooLarge) past `limits`. */
export type DocumentParser = (
  bytes: Uint8Array,
  fileName: string,
  limits?: GridLimits,
) => Promise<WorkbookDocument>;

/** What of a file's limits its document is held to: its grid, and the time a write may spend on its formulas. */
export function documentLimits(limits: FileLimits): GridLimits {
  const { maxCells, maxTextChars, parseTimeoutMs } = limits;
  return { maxCells, maxTextChars, computeTimeoutMs: parseTimeoutMs };
}
