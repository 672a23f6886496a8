/**
 * Deleting whole rows from a worksheet part, with what Excel shifts: rows and cells below move up, formula
 * references (on this tab and on every other, and in defined names) follow or become #REF!, and so do
 * merged cells, conditional formats, data validations, hyperlinks, the auto filter, tables and comments
 * (with their note boxes).
 * Not shifted (as with today's engine): drawing anchors of images and charts, formulas inside
 * conditional-format rules and validation lists, and ranges kept in extension lists (`x14:`).
 */
import { type ShiftContext, shiftFormula, shiftRange, translateFormula } from '../formulas/formula-text.ts';
import { RowMap } from '../row-map.ts';
import { deleteRowRewrite, editFormulas, shiftSheetFormulas } from './row-delete-rewrite.ts';
import type { PortableRewrite, RowsDeleted } from './row-slots.ts';
import { parseRow, rowToXml } from './row-xml.ts';
import type { SheetEdit } from './sheet-edit-target.ts';
import type { SheetXml } from './sheet-xml.ts';
import { shiftTable } from './table-parts.ts';
import { editDefinedNames } from './workbook-part.ts';
import { decodeXml, getAttr, setAttr } from './xml-text.ts';

/** Replace shared formulas by one formula per cell (same meaning), so rows can move independently. */
export function unshareFormulas(sheet: SheetXml): void {
  const masters = new Map<string, { text: string; row: number; column: number }>();
  // Pieces known to hold no shared formula are not opened.
  for (const slot of sheet.rowsWithSharedFormulas()) {
    if (!slot.xml.includes('shared')) continue;
    for (const cell of parseRow(slot.xml, sheet.prefix).cells) {
      editFormulas(cell.xml, (text, start) => {
        const si = getAttr(start, 'si');
        if (getAttr(start, 't') === 'shared' && si !== undefined && text !== undefined && text !== '') {
          masters.set(si, { text, row: slot.number, column: cell.column });
        }
        return { text, start };
      });
    }
  }
  if (masters.size === 0) return;
  for (const slot of sheet.rowsWithSharedFormulas()) {
    if (!slot.xml.includes('shared')) continue;
    const row = parseRow(slot.xml, sheet.prefix);
    for (const cell of row.cells) {
      cell.xml = editFormulas(cell.xml, (text, start) => {
        const si = getAttr(start, 'si');
        const master = si === undefined ? undefined : masters.get(si);
        if (getAttr(start, 't') !== 'shared' || !master) return { text, start };
        const plain = setAttr(setAttr(setAttr(start, 't', undefined), 'si', undefined), 'ref', undefined);
        return {
          text: translateFormula(master.text, slot.number - master.row, cell.column - master.column),
          start: plain,
        };
      });
    }
    slot.xml = rowToXml(row, sheet.prefix);
  }
  sheet.changed = true;
}

function shiftRefList(list: string, rows: RowMap): string {
  return list
    .split(/\s+/)
    .filter((r) => r !== '')
    .map((r) => shiftRange(r, rows))
    .filter((r): r is string => r !== null)
    .join(' ');
}

/** Edits the `attr` of every `local` element; an element whose range is gone is removed (with its body). */
function shiftElements(
  xml: string,
  local: string,
  attr: string,
  rows: RowMap,
  keepSingleCell = true,
): string {
  const pattern = new RegExp(`<((?:[\\w.-]+:)?${local})(?=[\\s/>])[^>]*?(?:\\/>|>[\\s\\S]*?<\\/\\1>)`, 'g');
  return xml.replace(pattern, (element) => {
    const start = /^<[^>]*>/.exec(element)?.[0] as string;
    const value = getAttr(start, attr);
    if (value === undefined) return element;
    const shifted = shiftRefList(value, rows);
    if (shifted === value) return element;
    if (shifted === '' || (!keepSingleCell && !shifted.includes(':'))) return '';
    return setAttr(start, attr, shifted) + element.slice(start.length);
  });
}

function deleteFromSheetData(sheet: SheetXml, deleted: RowsDeleted, rows: RowMap): void {
  const portable: PortableRewrite = { kind: 'delete', ...deleted };
  sheet.moveRows({
    rewrite: deleteRowRewrite(deleted),
    numbering: (number) => rows.row(number),
    unchangedAbove: rows.first,
    portable: () => portable,
  });
}

function shiftTail(tail: string, rows: RowMap): string {
  let out = shiftElements(tail, 'mergeCell', 'ref', rows, false);
  out = shiftElements(out, 'conditionalFormatting', 'sqref', rows);
  out = shiftElements(out, 'dataValidation', 'sqref', rows);
  out = shiftElements(out, 'hyperlink', 'ref', rows);
  out = shiftElements(out, 'autoFilter', 'ref', rows);
  return out;
}

/** Comment parts: a comment on a deleted row goes, one below moves up. */
function shiftComments(xml: string, rows: RowMap, local: string): string {
  return shiftElements(xml, local, 'ref', rows);
}

/** A 0-based VML anchor row after the delete (a deleted row gives the row that moves into its place). */
function vmlRow(row0: number, rows: RowMap): number {
  const span = rows.span(row0 + 1, Number.MAX_SAFE_INTEGER);
  return span ? span[0] - 1 : row0;
}

/**
 * The note boxes of legacy comments (a VML drawing): each names its cell by 0-based `<x:Row>`/`<x:Column>`,
 * and its box by an `<x:Anchor>`. A note on a deleted row goes; the others move up with their cells.
 */
function shiftNoteShapes(xml: string, rows: RowMap): string {
  return xml.replace(/<((?:[\w.-]+:)?shape)\b[^>]*>[\s\S]*?<\/\1>/g, (shape) => {
    const row = /<((?:[\w.-]+:)?Row)>\s*(\d+)\s*<\/\1>/.exec(shape);
    if (!row || !/ObjectType\s*=\s*"Note"/.test(shape)) return shape;
    const moved = rows.row(Number(row[2]) + 1);
    if (moved === null) return '';
    let next = shape.replace(row[0], `<${row[1]}>${moved - 1}</${row[1]}>`);
    next = next.replace(/<((?:[\w.-]+:)?Anchor)>([^<]*)<\/\1>/, (whole, name: string, text: string) => {
      const parts = text.split(',').map((p) => p.trim());
      if (parts.length !== 8) return whole;
      parts[2] = String(vmlRow(Number(parts[2]), rows));
      parts[6] = String(Math.max(Number(parts[2]), vmlRow(Number(parts[6]), rows)));
      return `<${name}>${parts.join(', ')}</${name}>`;
    });
    return next;
  });
}

/** Delete the 1-based sheet rows of the edited tab; rows below move up. */
export function deleteSheetRows(edit: SheetEdit, sheetRows: readonly number[]): void {
  if (sheetRows.length === 0) return;
  const rows = new RowMap(sheetRows);
  const { sheet } = edit;
  unshareFormulas(sheet);
  const deleted = { deleted: rows.deleted, sheetName: edit.sheetName, prefix: sheet.prefix };
  deleteFromSheetData(sheet, deleted, rows);
  sheet.tail = shiftTail(sheet.tail, rows);
  sheet.changed = true;
  for (const table of edit.tables) shiftTable(table, rows);
  for (const [kind, local] of [
    ['comments', 'comment'],
    ['threadedComment', 'threadedComment'],
  ] as const) {
    for (const part of edit.sideParts(kind)) {
      const xml = part.get();
      if (xml === undefined) continue;
      const shifted = shiftComments(xml, rows, local);
      if (shifted !== xml) part.set(shifted);
    }
  }
  for (const part of edit.sideParts('vmlDrawing')) {
    const xml = part.get();
    if (xml === undefined) continue;
    const shifted = shiftNoteShapes(xml, rows);
    if (shifted !== xml) part.set(shifted);
  }
  const other: ShiftContext = { sheetName: edit.sheetName, onSameSheet: false, rows };
  const workbook = edit.workbookXml.get();
  const names = editDefinedNames(workbook, (formula) => shiftFormula(formula, other));
  if (names !== workbook) edit.workbookXml.set(names);
  for (const { sheet: otherSheet } of edit.otherSheets()) shiftOtherSheet(otherSheet, other);
}

/**
 * Whether row XML may name the tab `lowerName` (a quick filter: a false yes costs a parse, a false no loses a
 * shift). Formula text in the file may spell the name with character or entity references (openpyxl writes
 * `Été` as `&#201;t&#233;`), so a row holding `&` is looked at decoded; a row without one costs no decoding.
 */
export function mayNameTab(xml: string, lowerName: string): boolean {
  const quoted = lowerName.replace(/'/g, "''");
  const lower = xml.toLowerCase();
  if (lower.includes(lowerName) || lower.includes(quoted)) return true;
  if (!xml.includes('&')) return false;
  const decoded = decodeXml(xml).toLowerCase();
  return decoded.includes(lowerName) || decoded.includes(quoted);
}

/** Formulas on another tab that point at the edited one; the part is rewritten only if one changed. */
function shiftOtherSheet(sheet: SheetXml, ctx: ShiftContext): void {
  const name = ctx.sheetName.toLowerCase();
  const mentions = (xml: string) => mayNameTab(xml, name);
  if (!sheet.allRows().some((slot) => mentions(slot.xml))) return;
  unshareFormulas(sheet);
  for (const slot of sheet.allRows()) {
    if (!mentions(slot.xml)) continue;
    const shifted = shiftSheetFormulas(slot.xml, ctx);
    if (shifted !== slot.xml) {
      slot.xml = shifted;
      sheet.changed = true;
    }
  }
}
