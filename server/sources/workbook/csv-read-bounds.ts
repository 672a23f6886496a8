/**
 * How far a .csv read goes and how much room it makes: the room its arrays are given once its first records are
 * read, the most lines it may have (within the grid limits, SHEETPORT_MAX_CELLS) and the most columns.
 */
import { type GridLimits, GridTooLarge } from '../tab.ts';
import { EXCEL_MAX_COLUMNS } from './excel-grid.ts';

/** Records read before the rest is expected (`#expectTheRest`), and the margin over what they suggest. */
export const EXPECT_AFTER_RECORDS = 4096;
export const EXPECT_MARGIN = 1.03;

/** Room for the `count` cells read so far, scaled by `scale`, never beyond the cells `limits` let a tab hold. */
export function expectedCells(count: number, scale: number, limits: GridLimits | undefined): number {
  return Math.min(Math.ceil(count * scale), limits?.maxCells ?? Number.POSITIVE_INFINITY);
}

/**
 * Room for the `count` lines (row starts, records) read so far, scaled by `scale`, never beyond the most lines a
 * read may have. A file of tiny records (`1\n` a billion times) would otherwise have them expected past any limit
 * before the limit refuses it.
 */
export function expectedLines(count: number, scale: number, limits: GridLimits | undefined): number {
  return Math.min(Math.ceil(count * scale), maxLinesOf(limits));
}

/**
 * The most lines (records, blank ones too) a read may have: as many as the rows a tab may hold, and the header.
 * Each line's place is kept, so a file of blank lines (which are no rows) would otherwise cost its 24 bytes a
 * line past every limit: half a gigabyte of line breaks, 12 GB.
 */
export function maxLinesOf(limits: GridLimits | undefined): number {
  return limits ? limits.maxCells + 1 : Number.POSITIVE_INFINITY;
}

/** The refusal of a read past `maxLinesOf(limits)`. */
export function tooManyLinesFor(limits: GridLimits | undefined): GridTooLarge {
  return new GridTooLarge(
    `has more than ${maxLinesOf(limits)} lines, blank ones included: more than the rows a tab may hold within the limit of ${limits?.maxCells} cells (SHEETPORT_MAX_CELLS).`,
  );
}

/**
 * The most columns a .csv tab may have: Excel's sheet's, the tab's write limit too (engines.ts), so every tab
 * read can be written. A file with a cell further right is refused whole, never cut: Excel would open it cut.
 * Past it, fields are only scanned, so a line of ten million commas costs its scan, not a header of ten million
 * names (40 s and 1.8 GB before this rule).
 */
export const MAX_CSV_COLUMNS = EXCEL_MAX_COLUMNS;

/** The refusal of a read with a cell past `MAX_CSV_COLUMNS`, the widest at column `columns`. */
export function tooWideFor(name: string, columns: number): GridTooLarge {
  return new GridTooLarge(
    `has a tab ("${name}") with a cell in column ${columns}: a tab holds at most ${MAX_CSV_COLUMNS} columns (A to XFD), as Excel's sheet does, and a wider file is refused rather than cut.`,
  );
}
