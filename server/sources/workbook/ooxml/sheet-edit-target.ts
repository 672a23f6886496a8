/**
 * What a write to one worksheet may touch: the sheet, its tables, styles, related parts and the workbook
 * part. The document builds it; the edits (sheet-edit.ts, row-delete.ts) only see this.
 */
import type { SheetXml } from './sheet-xml.ts';
import type { StylesPart } from './styles-part.ts';
import type { TablePart } from './table-parts.ts';

export interface TextPart {
  part: string;
  get(): string | undefined;
  set(text: string): void;
}

export interface SheetEdit {
  sheet: SheetXml;
  sheetName: string;
  tables: TablePart[];
  styles: StylesPart;
  date1904: boolean;
  /** The workbook's other worksheets (opened for editing only when a delete must shift their formulas). */
  otherSheets(): { name: string; sheet: SheetXml }[];
  /** The sheet's related parts of one relationship kind (`comments`, `threadedComment`...). */
  sideParts(kind: string): TextPart[];
  workbookXml: { get(): string; set(text: string): void };
}
