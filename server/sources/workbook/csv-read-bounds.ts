/**
 * How far a .csv read goes and how much room it makes: the room its arrays are given once its first records are
 * read, and the most lines it may have. Each within the grid limits (SHEETPORT_MAX_CELLS).
 */
import { type GridLimits, GridTooLarge } from '../tab.ts';

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
