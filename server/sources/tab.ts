/**
 * From a grid of cells to a TabSnapshot. Every kind produces the same grid shape so the row rules
 * (header = first non-empty row, empty middle rows kept, trailing empty rows dropped) live in one place.
 */
import { resolveHeader } from './header.ts';
import type { CellValue, TabSnapshot } from './source.ts';

/** One cell as read: its typed value and the text the sheet displays. */
export interface GridCell {
  typed: CellValue;
  formatted: string;
  /** The cell's formula (`=B2*C2`), where the source reports it. */
  formula?: string;
}

/** `rows[i]` is spreadsheet row i + 1, `rows[i][j]` column j + 1; holes and nulls are empty cells. */
export type Grid = ReadonlyArray<ReadonlyArray<GridCell | null | undefined> | undefined>;

function lastUsedColumn(row: ReadonlyArray<GridCell | null | undefined> | undefined): number {
  if (!row) return 0;
  for (let j = row.length - 1; j >= 0; j--) if (row[j]) return j + 1;
  return 0;
}

/**
 * How big a tab may be once read. A small file can describe a huge grid: one cell at row 1,048,576 under a wide
 * header, or one long text shared by every cell; the limits stop it before the grid is built.
 */
export interface GridLimits {
  /** Cells from the header to the last row, times the columns. */
  maxCells: number;
  /** Characters of all text, typed and displayed, in the tab. */
  maxTextChars: number;
  /** Longest a write may spend computing again the formulas it reaches, in ms (ooxml/recalc-time.ts). */
  computeTimeoutMs?: number;
  /**
   * Cells the workbook's tabs read before this one span: `maxCells` holds for them and this tab together, since
   * one read holds them all (a file of many small tabs that each describe a huge grid is one huge grid).
   */
  cellsBefore?: number;
}

/** A tab over `GridLimits`: the message says which limit, in words for a user. */
export class GridTooLarge extends Error {}

export function buildTab(sourceSheetId: string, name: string, rows: Grid, limits?: GridLimits): TabSnapshot {
  let headerIndex = -1;
  let lastIndex = -1;
  let columns = 0;
  for (let i = 0; i < rows.length; i++) {
    const used = lastUsedColumn(rows[i]);
    if (used === 0) continue;
    if (headerIndex < 0) headerIndex = i;
    lastIndex = i;
    if (used > columns) columns = used;
  }
  if (headerIndex < 0) return { sourceSheetId, name, header: [], headerRow: 0, typed: [], formatted: [] };
  const cells = (lastIndex - headerIndex + 1) * columns;
  if (limits && cells > limits.maxCells) {
    throw new GridTooLarge(
      `has a tab ("${name}") of ${lastIndex - headerIndex + 1} rows by ${columns} columns, ${cells} cells in all, over the limit of ${limits.maxCells} (SHEETPORT_MAX_CELLS).`,
    );
  }
  let text = 0;

  // Columns start at A even when the first used column is further right: a simple, predictable mapping
  // (blank leading columns just get letter names).
  const headerCells = rows[headerIndex] ?? [];
  const rawNames: string[] = [];
  for (let j = 0; j < columns; j++) rawNames.push(headerCells[j]?.formatted ?? '');
  const header = resolveHeader(rawNames);

  const typed: CellValue[][] = [];
  const formatted: string[][] = [];
  /** Rows with a formula cell: their copy with the formula in its place (`?values=formula`). */
  const formulaRows = new Map<number, CellValue[]>();
  for (let i = headerIndex + 1; i <= lastIndex; i++) {
    const row = rows[i];
    const t: CellValue[] = new Array(columns);
    const f: string[] = new Array(columns);
    for (let j = 0; j < columns; j++) {
      const cell = row?.[j];
      t[j] = cell ? cell.typed : null;
      f[j] = cell ? cell.formatted : '';
      if (cell) text += cell.formatted.length + (typeof cell.typed === 'string' ? cell.typed.length : 0);
      if (cell?.formula !== undefined) {
        const shown = formulaRows.get(typed.length) ?? [];
        formulaRows.set(typed.length, shown);
        shown[j] = cell.formula;
      }
    }
    if (limits && text > limits.maxTextChars) {
      throw new GridTooLarge(
        `holds more than ${limits.maxTextChars} characters of text once read, in its tab "${name}" (SHEETPORT_MAX_TEXT_MB).`,
      );
    }
    const shown = formulaRows.get(typed.length);
    if (shown)
      formulaRows.set(
        typed.length,
        t.map((value, j) => shown[j] ?? value),
      );
    typed.push(t);
    formatted.push(f);
  }
  const tab: TabSnapshot = { sourceSheetId, name, header, headerRow: headerIndex + 1, typed, formatted };
  if (formulaRows.size > 0) {
    const withFormulas = typed.map((row, i) => formulaRows.get(i) ?? row);
    // Not enumerable: a snapshot compares and serializes as its values alone.
    Object.defineProperty(tab, 'withFormulas', { value: withFormulas });
  }
  return tab;
}
