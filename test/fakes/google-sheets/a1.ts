// A1 notation: parse what a client sends, and echo ranges the way Google does
// (sheet title quoted only when needed, open ends clamped to the grid, one cell as `D4`).
import { unableToParseRange } from './errors.ts';

/** 0-based, inclusive bounds; undefined = open end ("A:A", "1:2", whole sheet). */
export type CellBounds = { startRow?: number; startCol?: number; endRow?: number; endCol?: number };
export type ParsedRange = { sheetTitle?: string; bounds: CellBounds };
export type GridRect = { startRow: number; startCol: number; endRow: number; endCol: number };

const MAX_COLUMN = 18278; // ZZZ

export function columnToLetters(col: number): string {
  let n = col + 1;
  let out = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    out = String.fromCharCode(65 + rem) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

export function lettersToColumn(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

const PART = /^([A-Za-z]{1,3})?([0-9]+)?$/;

type Part = { row?: number; col?: number };

function parsePart(text: string): Part | undefined {
  const m = PART.exec(text.replace(/\$/g, ''));
  if (!m || (!m[1] && !m[2])) return undefined;
  const part: Part = {};
  if (m[1]) {
    part.col = lettersToColumn(m[1]);
    if (part.col >= MAX_COLUMN) return undefined;
  }
  if (m[2]) {
    const row = Number(m[2]);
    if (row < 1) return undefined;
    part.row = row - 1;
  }
  return part;
}

/** Parses the cell part of a range (`A1`, `A1:B2`, `A:C`, `2:5`, `A5:A`); undefined if not A1. */
export function parseCells(text: string): CellBounds | undefined {
  const pieces = text.split(':');
  if (pieces.length > 2) return undefined;
  const first = parsePart(pieces[0] ?? '');
  if (!first) return undefined;
  if (pieces.length === 1) {
    // A single reference must name a cell: `A` or `5` alone is not a range.
    if (first.row === undefined || first.col === undefined) return undefined;
    return { startRow: first.row, startCol: first.col, endRow: first.row, endCol: first.col };
  }
  const second = parsePart(pieces[1] ?? '');
  if (!second) return undefined;
  // Whole columns (`A:C`) or whole rows (`2:5`) need both ends of the same kind.
  if (first.row === undefined && second.row !== undefined && first.col !== undefined) return undefined;
  if (first.col === undefined && second.col !== undefined && first.row !== undefined) return undefined;
  const bounds: CellBounds = {};
  const rows = orderPair(first.row, second.row);
  const cols = orderPair(first.col, second.col);
  if (rows[0] !== undefined) bounds.startRow = rows[0];
  if (rows[1] !== undefined) bounds.endRow = rows[1];
  if (cols[0] !== undefined) bounds.startCol = cols[0];
  if (cols[1] !== undefined) bounds.endCol = cols[1];
  if (first.row === undefined && first.col !== undefined) delete bounds.startRow;
  return bounds;
}

function orderPair(a: number | undefined, b: number | undefined): [number | undefined, number | undefined] {
  if (a !== undefined && b !== undefined && b < a) return [b, a];
  return [a, b];
}

function unquote(quoted: string): string | undefined {
  if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return undefined;
  const inner = quoted.slice(1, -1);
  if (/(^|[^'])'([^']|$)/.test(inner.replace(/''/g, ''))) return undefined;
  return inner.replace(/''/g, "'");
}

/**
 * Splits `Sheet!A1:B2`, `'My sheet'!A:A`, `'My sheet'`, `Sheet1` or `A1:B2`.
 * `isSheet` tells whether an unquoted bare word names a sheet (Google prefers the sheet only
 * when the text is not itself a cell reference).
 */
export function parseRange(text: string, isSheet: (title: string) => boolean): ParsedRange {
  const bang = text.lastIndexOf('!');
  if (bang >= 0) {
    const sheetPart = text.slice(0, bang);
    const cellPart = text.slice(bang + 1);
    const title = sheetPart.startsWith("'") ? unquote(sheetPart) : sheetPart;
    const bounds = parseCells(cellPart);
    if (title === undefined || title === '' || !bounds) throw unableToParseRange(text);
    return { sheetTitle: title, bounds };
  }
  if (text.startsWith("'")) {
    const title = unquote(text);
    if (title === undefined) throw unableToParseRange(text);
    return { sheetTitle: title, bounds: {} };
  }
  const bounds = parseCells(text);
  if (bounds) return { bounds };
  if (isSheet(text)) return { sheetTitle: text, bounds: {} };
  throw unableToParseRange(text);
}

/** Resolves open ends against the grid and clamps ends that run past it. */
export function resolveBounds(bounds: CellBounds, rowCount: number, columnCount: number): GridRect {
  return {
    startRow: bounds.startRow ?? 0,
    startCol: bounds.startCol ?? 0,
    endRow: Math.min(bounds.endRow ?? rowCount - 1, rowCount - 1),
    endCol: Math.min(bounds.endCol ?? columnCount - 1, columnCount - 1),
  };
}

const PLAIN_TITLE = /^[A-Za-z_][A-Za-z0-9_.]*$/;
const LOOKS_LIKE_REFERENCE = /^([A-Za-z]{1,3}[0-9]*|[Rr][0-9]*[Cc][0-9]*|[0-9]+)$/;

export function quoteTitle(title: string): string {
  if (PLAIN_TITLE.test(title) && !LOOKS_LIKE_REFERENCE.test(title) && !/^(true|false)$/i.test(title))
    return title;
  return `'${title.replace(/'/g, "''")}'`;
}

export function cellName(row: number, col: number): string {
  return `${columnToLetters(col)}${row + 1}`;
}

export function formatRect(rect: GridRect): string {
  const start = cellName(rect.startRow, rect.startCol);
  if (rect.startRow === rect.endRow && rect.startCol === rect.endCol) return start;
  return `${start}:${cellName(rect.endRow, rect.endCol)}`;
}

export function formatRange(title: string, rect: GridRect): string {
  return `${quoteTitle(title)}!${formatRect(rect)}`;
}
