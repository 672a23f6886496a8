/**
 * A worksheet part streamed through saxes into the grid `buildTab` takes: only `<sheetData>` cells and
 * `<mergeCells>` are looked at; every other element is skipped. A merged range's non-anchor cells read as
 * empty, as in Excel (only the top-left cell of a merge holds the value).
 */
import { SaxesParser } from 'saxes';
import type { GridCell } from '../../tab.ts';
import { parseCellRef } from './cell-ref.ts';
import { type RawCell, type ReadContext, readCell } from './cell-values.ts';
import type { StylesPart } from './styles-part.ts';

const localName = (name: string) => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

export type GridRows = (GridCell | null)[][];

export interface SheetGrid {
  rows: GridRows;
  /** The merged ranges (`A1:B2`), whose non-anchor cells read as empty. */
  merges: string[];
}

export function readSheetGrid(xml: string, styles: StylesPart, ctx: ReadContext): SheetGrid {
  const rows: GridRows = [];
  const merges: string[] = [];
  const parser = new SaxesParser({ position: false });
  let inSheetData = false;
  let rowNumber = 0;
  let columnNumber = 0;
  let cell: RawCell | null = null;
  let collecting: 'v' | 't' | null = null;
  let inPhonetic = false;
  let text = '';

  parser.on('opentag', (tag) => {
    const name = localName(tag.name);
    const attrs = tag.attributes as Record<string, string>;
    if (!inSheetData) {
      if (name === 'sheetData') inSheetData = true;
      else if (name === 'mergeCell' && attrs.ref) merges.push(attrs.ref);
      return;
    }
    switch (name) {
      case 'row': {
        const r = Number(attrs.r);
        rowNumber = Number.isInteger(r) && r > 0 ? r : rowNumber + 1;
        columnNumber = 0;
        break;
      }
      case 'c': {
        const at = attrs.r === undefined ? undefined : parseCellRef(attrs.r);
        if (at) {
          columnNumber = at.column;
          if (at.row !== rowNumber && attrs.r !== undefined) rowNumber = at.row;
        } else columnNumber++;
        const s = attrs.s === undefined ? 0 : Number(attrs.s);
        cell = { type: attrs.t, value: undefined, hasFormula: false, numFmt: styles.numFmt(s) };
        break;
      }
      case 'f':
        if (cell) cell.hasFormula = true;
        break;
      case 'v':
        collecting = 'v';
        text = '';
        break;
      case 'rPh':
        inPhonetic = true;
        break;
      case 't':
        if (cell && !inPhonetic) {
          collecting = 't';
          if (cell.value === undefined) cell.value = '';
        }
        break;
    }
  });
  parser.on('text', (chunk) => {
    if (collecting === 'v') text += chunk;
    else if (collecting === 't' && cell) cell.value += chunk;
  });
  parser.on('cdata', (chunk) => {
    if (collecting === 'v') text += chunk;
    else if (collecting === 't' && cell) cell.value += chunk;
  });
  parser.on('closetag', (tag) => {
    if (!inSheetData) return;
    const name = localName(tag.name);
    if (name === 'v') {
      if (cell && cell.type !== 'inlineStr') cell.value = text;
      collecting = null;
    } else if (name === 't') collecting = null;
    else if (name === 'rPh') inPhonetic = false;
    else if (name === 'c') {
      if (cell) {
        const value = readCell(cell, ctx);
        if (value) {
          let row = rows[rowNumber - 1];
          if (!row) {
            row = [];
            rows[rowNumber - 1] = row;
          }
          row[columnNumber - 1] = value;
        }
      }
      cell = null;
    } else if (name === 'sheetData') inSheetData = false;
  });
  parser.write(xml).close();
  clearMergedCells(rows, merges);
  return { rows, merges };
}

/**
 * Re-reads some rows of a grid read before (rows a write rewrote), leaving every other row as it is:
 * `rowsXml` are the rows' `<row>` elements. Cheaper than reading the whole sheet again after a small write.
 */
export function rereadRows(
  grid: SheetGrid,
  numbers: Iterable<number>,
  rowsXml: string,
  styles: StylesPart,
  ctx: ReadContext,
): void {
  const fresh = readSheetGrid(`<worksheet><sheetData>${rowsXml}</sheetData></worksheet>`, styles, ctx).rows;
  for (const number of numbers) {
    const row = fresh[number - 1];
    if (row) grid.rows[number - 1] = row;
    else delete grid.rows[number - 1];
  }
  clearMergedCells(grid.rows, grid.merges);
}

function clearMergedCells(rows: GridRows, merges: readonly string[]): void {
  for (const ref of merges) {
    const [from, to] = ref.split(':');
    const a = from === undefined ? undefined : parseCellRef(from);
    const b = to === undefined ? undefined : parseCellRef(to);
    if (!a || !b) continue;
    for (let r = Math.min(a.row, b.row); r <= Math.max(a.row, b.row); r++) {
      const row = rows[r - 1];
      if (!row) continue;
      for (let c = Math.min(a.column, b.column); c <= Math.max(a.column, b.column); c++) {
        if (r === Math.min(a.row, b.row) && c === Math.min(a.column, b.column)) continue;
        if (row[c - 1]) row[c - 1] = null;
      }
    }
  }
}
