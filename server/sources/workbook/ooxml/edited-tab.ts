/**
 * A tab's new version after a write, without reading the sheet again: rows the write left alone keep their
 * arrays (a diff of the versions then costs nothing for them), rows it wrote are read back from their new XML,
 * and deleted rows go. The result is what a fresh read of the written file gives; the corpus test holds the two
 * to each other on every file.
 */
import { resolveHeader } from '../../header.ts';
import type { CellValue } from '../../source.ts';
import { CellTab } from '../cell-tab.ts';
import { FormatCodes } from '../format-codes.ts';
import { RowMap } from '../row-map.ts';
import type { SheetRowChanges } from './sheet-edit.ts';

/** A sheet row as the write left it: its values and format codes by column (index 0 = column A). */
export interface ReadRow {
  values: CellValue[];
  codes: number[];
  /** Display texts of its cells, for a header row. */
  texts: string[];
  /** Formula text (no `=`) by column, where the cell has one. */
  formulas: (string | undefined)[];
}

/** `readRow`: a row of the written sheet by its number after the write (null when it has no cells). */
export function editedTab(
  old: CellTab,
  changes: SheetRowChanges,
  readRow: (row: number) => ReadRow | null,
  /** How a kept row's formulas read now (a delete moved the references below it). */
  shiftFormula: (text: string) => string = (text) => text,
): CellTab {
  const { headerRow, headerTexts } = headerAfter(old, changes, readRow);
  const origins = rowOrigins(old, changes, headerRow);
  // Rows keep their places when nothing was deleted: a kept row is the old row of the same index.
  const inPlace = changes.deleted.length === 0 && headerRow === old.headerRow;
  const rows = assembleRows(old, origins, headerRow, headerTexts.length, inPlace, readRow, shiftFormula);
  const width = trimEmptyEnd(rows.typed, rows.rowCodes, headerTexts);
  const header =
    width === old.header.length && headerTexts === old.headerTexts
      ? old.header
      : resolveHeader(headerTexts.slice(0, width));
  const oldWidth = old.header.length;
  const { typed, rowFormulas } = rows;
  return new CellTab({
    sourceSheetId: old.sourceSheetId,
    name: old.name,
    header,
    headerTexts: headerTexts.slice(0, width),
    headerRow: typed.length === 0 && header.length === 0 ? 0 : headerRow,
    typed: width === oldWidth ? typed : typed.map((row) => padTo(row, width, null)),
    codes: codesOf(old, rows.rowCodes, width),
    numberFormats: old.numberFormats,
    shared: old.shared,
    formulas:
      inPlace && width === oldWidth
        ? formulasInPlace(old, origins, rowFormulas, typed.length, width)
        : placeFormulas(rowFormulas, typed.length, width),
    headerFormulas: changes.newHeader ? undefined : shiftHeaderFormulas(old.headerFormulas, shiftFormula),
  });
}

/** The header row's number and texts after the write (the old ones when the write left them alone). */
function headerAfter(
  old: CellTab,
  changes: SheetRowChanges,
  readRow: (row: number) => ReadRow | null,
): { headerRow: number; headerTexts: string[] } {
  if (changes.newHeader) return { headerRow: 1, headerTexts: readRow(1)?.texts ?? [] };
  if (changes.header) {
    const texts = padTo(readRow(old.headerRow)?.texts ?? [], old.headerTexts.length, '');
    if (texts.some((text, i) => text !== old.headerTexts[i]))
      return { headerRow: old.headerRow, headerTexts: texts };
  }
  return { headerRow: old.headerRow, headerTexts: old.headerTexts };
}

/**
 * Where each row of the new version comes from, by its index: an old row (its index), the written sheet (-1),
 * or nowhere (undefined: an empty row).
 */
function rowOrigins(old: CellTab, changes: SheetRowChanges, headerRow: number): (number | undefined)[] {
  const deleted = new RowMap(changes.deleted);
  const origins: (number | undefined)[] = [];
  const at = (sheetRow: number) => sheetRow - headerRow - 1;
  old.typed.forEach((_, i) => {
    const moved = deleted.row(old.headerRow + 1 + i);
    if (moved !== null) origins[at(moved)] = i;
  });
  const reread = new Set<number>();
  for (const row of changes.updated) {
    const moved = deleted.row(row);
    if (moved !== null) reread.add(moved);
  }
  for (const row of [...changes.cleared, ...changes.appended]) reread.add(row);
  for (const row of reread) if (row > headerRow) origins[at(row)] = -1;
  return origins;
}

interface AssembledRows {
  typed: CellValue[][];
  /** Per row: the old row's index, or the format codes read back with it. */
  rowCodes: (number | number[])[];
  /** Formulas of the new version as [row, column, text]; the kept rows' come from the old version. */
  rowFormulas: [row: number, column: number, text: string][];
}

/** The new version's rows: kept rows from the old version, the others read back from the written sheet. */
function assembleRows(
  old: CellTab,
  origins: readonly (number | undefined)[],
  headerRow: number,
  width: number,
  inPlace: boolean,
  readRow: (row: number) => ReadRow | null,
  shiftFormula: (text: string) => string,
): AssembledRows {
  const rows: AssembledRows = { typed: [], rowCodes: [], rowFormulas: [] };
  // Rows in place keep their formulas in the old map (formulasInPlace), so they need no list by row.
  const oldFormulas = inPlace ? null : formulasByRow(old);
  for (let k = 0; k < origins.length; k++) {
    const from = origins[k];
    if (from !== undefined && from >= 0) {
      rows.typed.push(old.typed[from]!);
      rows.rowCodes.push(from);
      for (const [column, text] of oldFormulas?.get(from) ?? [])
        rows.rowFormulas.push([k, column, shiftFormula(text)]);
      continue;
    }
    const read = from === -1 ? readRow(headerRow + 1 + k) : null;
    rows.typed.push(padTo(read?.values ?? [], width, null));
    rows.rowCodes.push(padTo(read?.codes ?? [], width, 0));
    read?.formulas.forEach((text, column) => {
      if (text !== undefined) rows.rowFormulas.push([k, column, text]);
    });
  }
  return rows;
}

/**
 * Drops trailing empty rows (a tab ends at its last row with a value) from `typed` and `rowCodes`, and returns
 * the width left once trailing columns with no header text and no value are gone.
 */
function trimEmptyEnd(typed: CellValue[][], rowCodes: unknown[], headerTexts: readonly string[]): number {
  while (typed.length > 0 && typed.at(-1)!.every((v) => v === null)) {
    typed.pop();
    rowCodes.pop();
  }
  let width = headerTexts.length;
  while (width > 0 && headerTexts[width - 1] === '' && typed.every((row) => row[width - 1] === null)) width--;
  return width;
}

/** The new version's format codes at `width`: kept rows' from the old version, written rows' their own. */
function codesOf(old: CellTab, rowCodes: readonly (number | number[])[], width: number): FormatCodes {
  const oldWidth = old.header.length;
  const kept = keptRowCodes(old.codes, oldWidth, width);
  if (kept && rowCodes.every((row) => typeof row === 'number' || kept.sameForEveryRow(row))) return kept;
  const codes = new Uint16Array(rowCodes.length * width);
  const oldCells = old.codes.cells;
  for (let r = 0; r < rowCodes.length; ) {
    const row = rowCodes[r]!;
    if (typeof row !== 'number') {
      for (let c = 0; c < width; c++) codes[r * width + c] = row[c] ?? 0;
      r++;
      continue;
    }
    if (width !== oldWidth || !oldCells) {
      for (let c = 0; c < Math.min(width, oldWidth); c++) codes[r * width + c] = old.codes.at(row, c);
      r++;
      continue;
    }
    // Same width: a run of consecutive old rows (most of a tab, after any write) is one copy.
    let end = r + 1;
    while (end < rowCodes.length && rowCodes[end] === row + (end - r)) end++;
    codes.set(oldCells.subarray(row * width, (row + end - r) * width), r * width);
    r = end;
  }
  return FormatCodes.of(codes, width, rowCodes.length);
}

/** The codes every kept row has at `width` (columns past the old ones: none), when the old rows all had the same. */
function keptRowCodes(old: FormatCodes, oldWidth: number, width: number): FormatCodes | null {
  const byColumn = old.byColumn;
  if (!byColumn) return null;
  if (width === oldWidth) return old;
  return FormatCodes.perColumn(byColumn.subarray(0, Math.min(width, oldWidth)), width);
}

/** The header row's formulas after the write (a delete below moved their references). */
export function shiftHeaderFormulas(
  formulas: ReadonlyMap<number, string>,
  shiftFormula: (text: string) => string,
): ReadonlyMap<number, string> {
  if (formulas.size === 0) return formulas;
  return new Map([...formulas].map(([column, text]) => [column, shiftFormula(text)]));
}

/**
 * The new version's formulas when rows kept their places and the width its size: the old map, less the rows
 * read back (and any past the new end), plus what those rows hold now. A write costs the rows it wrote, not
 * a walk over every formula of the tab.
 */
function formulasInPlace(
  old: CellTab,
  origins: readonly (number | undefined)[],
  reread: readonly [number, number, string][],
  rows: number,
  width: number,
): Map<number, string> {
  const map = new Map(old.formulas);
  for (let k = 0; k < origins.length; k++) {
    if (origins[k] !== undefined && origins[k]! >= 0 && k < rows) continue;
    for (let c = 0; c < width; c++) map.delete(k * width + c);
  }
  if (rows < old.typed.length) for (const [at] of old.formulas) if (at >= rows * width) map.delete(at);
  for (const [row, column, text] of reread)
    if (row < rows && column < width) map.set(row * width + column, text);
  return map;
}

/** The old version's formulas, by row index: [column, text] pairs. */
function formulasByRow(tab: CellTab): Map<number, [number, string][]> {
  const width = tab.header.length;
  const byRow = new Map<number, [number, string][]>();
  for (const [at, text] of tab.formulas) {
    const row = Math.floor(at / width);
    const list = byRow.get(row) ?? [];
    list.push([at % width, text]);
    byRow.set(row, list);
  }
  return byRow;
}

function placeFormulas(
  formulas: readonly [number, number, string][],
  rows: number,
  width: number,
): Map<number, string> {
  const map = new Map<number, string>();
  for (const [row, column, text] of formulas)
    if (row < rows && column < width) map.set(row * width + column, text);
  return map;
}

function padTo<T>(row: readonly T[], width: number, empty: T): T[] {
  const out = row.slice(0, width);
  while (out.length < width) out.push(empty);
  return out;
}
