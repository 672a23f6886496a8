/**
 * Refusing a CSV that describes a grid over the cell limit before parsing it. csv-parse builds an error object
 * for every record whose length differs from the first one's, even when told to accept them, so a small hostile
 * file (a wide header over 300,000 blank lines) costs it seconds. A file with no quote character holds one
 * record per line, so its grid is bounded from its lines alone: the rows from the first line with content to the
 * last, times the header's width, is never more than what the tab would hold (a line with only spaces or
 * delimiters is not counted, and a later row may be wider). Over the limit, the file is refused as the tab
 * builder would refuse it; anything else is left to the parse.
 */
import { type GridLimits, GridTooLarge } from '../tab.ts';

export function refuseOversizedCsv(text: string, delimiter: string, name: string, limits?: GridLimits): void {
  if (!limits || text.includes('"')) return;
  let first = -1;
  let last = -1;
  let width = 0;
  for (let start = 0, line = 0; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (hasContent(text, start, end, delimiter)) {
      if (first < 0) {
        first = line;
        width = contentWidth(text.slice(start, end), delimiter);
      }
      last = line;
    }
    start = end + 1;
  }
  if (first < 0) return;
  const rows = last - first + 1;
  const cells = rows * width;
  if (cells > limits.maxCells) {
    throw new GridTooLarge(
      `has a tab ("${name}") of at least ${rows} rows by ${width} columns, ${cells} cells or more, over the limit of ${limits.maxCells} (SHEETPORT_MAX_CELLS).`,
    );
  }
}

/** Whether text[start, end) has a character other than white space and the delimiter. */
function hasContent(text: string, start: number, end: number, delimiter: string): boolean {
  for (let i = start; i < end; i++) {
    const ch = text[i]!;
    if (ch !== delimiter && !/\s/.test(ch)) return true;
  }
  return false;
}

/** The fields up to the last one with content: a lower bound of the row's width as the tab counts it. */
function contentWidth(line: string, delimiter: string): number {
  const fields = line.split(delimiter);
  for (let i = fields.length - 1; i >= 0; i--) if (fields[i]!.trim() !== '') return i + 1;
  return 0;
}
