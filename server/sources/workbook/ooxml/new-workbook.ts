/**
 * A new .xlsx package written from scratch, for workbooks SheetPort makes itself (the demo): tabs of typed rows,
 * with column widths and column styles, a styled header row and frozen rows. It writes the few parts a
 * SpreadsheetML package needs ([Content_Types].xml, the relationships, the workbook, styles, shared strings, one
 * sheet per tab, core properties) through the engine's own zip writer; Excel, LibreOffice and openpyxl open it.
 * Deterministic: the same input gives the same bytes.
 */
import { EXCEL_1900 } from '../../serial-dates.ts';
import { encodeCellText } from '../ooxml-text.ts';
import { cellRef } from './row-xml.ts';
import { escapeXml } from './xml-text.ts';
import { newZip } from './zip-writer.ts';

/** How a cell looks. Colours are ARGB hex (`FF2F5597`). */
export interface CellStyle {
  /** Number format code (`"$"#,##0.00`, `yyyy-mm-dd`); General when absent. */
  numFmt?: string;
  bold?: boolean;
  /** Font colour. */
  color?: string;
  /** Solid fill colour. */
  fill?: string;
  verticalAlign?: 'top' | 'center' | 'bottom';
}

/** A formula with the result it had when written (what readers show until they recalculate). */
export interface FormulaCell {
  /** Without the leading `=`: `E2*F2`. */
  formula: string;
  result?: string | number | boolean;
}

/** A cell's value: null, undefined and '' leave the cell empty; a Date is stored as a serial number (UTC). */
export type NewCell = string | number | boolean | Date | FormulaCell | null | undefined;

export interface NewColumn {
  /** In characters, as Excel measures column widths. */
  width?: number;
  /** The style of the column's cells (and of new cells typed into it). */
  style?: CellStyle;
}

export interface NewTab {
  /** 1 to 31 characters, none of `[]:*?/\`, unique in the workbook (any case). */
  name: string;
  /** By position from column A. */
  columns?: readonly NewColumn[];
  /** From row 1. */
  rows: readonly (readonly NewCell[])[];
  /** The style of the first row's cells, instead of their columns' (a header row). */
  headerStyle?: CellStyle;
  /** Rows kept in view at the top (frozen panes). */
  frozenRows?: number;
}

export interface NewWorkbook {
  tabs: readonly NewTab[];
  /** Core properties: the author, and the creation (and modification) time. */
  creator?: string;
  created?: Date;
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_RELS_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_TYPE = 'application/vnd.openxmlformats-officedocument';
const FIRST_CUSTOM_FORMAT = 164;
const DEFAULT_DATE_FORMAT = 'yyyy-mm-dd';
const DEFAULT_FONT = '<sz val="11"/><name val="Calibri"/><family val="2"/>';
/** The zip entries' time when no creation time is given, so the bytes never depend on the clock. */
const EPOCH = new Date(Date.UTC(1980, 0, 1));

/** Whether `style` shows a number format (a date cell without one gets the default date format). */
function hasFormat(style: CellStyle | undefined): boolean {
  return style?.numFmt !== undefined && style.numFmt !== 'General';
}

/** Equal styles, whatever the order or presence of their fields, share one key (and one cellXfs entry). */
function styleKey(style: CellStyle | undefined): string {
  const s = style ?? {};
  return JSON.stringify([
    hasFormat(s) ? s.numFmt : '',
    !!s.bold,
    s.color ?? '',
    s.fill ?? '',
    s.verticalAlign ?? '',
  ]);
}

/** The cell styles of the workbook (cellXfs), each with its font, fill and number format, added once each. */
class Styles {
  readonly #numberFormats: string[] = [];
  readonly #fonts = [DEFAULT_FONT];
  readonly #fills = ['<patternFill patternType="none"/>', '<patternFill patternType="gray125"/>'];
  readonly #xfs = ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'];
  readonly #ids = new Map<string, number>([[styleKey(undefined), 0]]);

  /** The style id (`s`) of `style`; 0 (General, default font) when it has nothing to say. */
  id(style: CellStyle | undefined): number {
    const key = styleKey(style);
    const known = this.#ids.get(key);
    if (known !== undefined) return known;
    const s = style ?? {};
    const numFmtId = hasFormat(s)
      ? this.#add(this.#numberFormats, s.numFmt as string) + FIRST_CUSTOM_FORMAT
      : 0;
    const fontId =
      s.bold || s.color
        ? this.#add(
            this.#fonts,
            `${s.bold ? '<b/>' : ''}<sz val="11"/>${s.color ? `<color rgb="${argb(s.color)}"/>` : ''}<name val="Calibri"/><family val="2"/>`,
          )
        : 0;
    const fillId = s.fill
      ? this.#add(
          this.#fills,
          `<patternFill patternType="solid"><fgColor rgb="${argb(s.fill)}"/><bgColor indexed="64"/></patternFill>`,
        )
      : 0;
    const apply = [
      numFmtId ? ' applyNumberFormat="1"' : '',
      fontId ? ' applyFont="1"' : '',
      fillId ? ' applyFill="1"' : '',
      s.verticalAlign ? ' applyAlignment="1"' : '',
    ].join('');
    const attrs = `numFmtId="${numFmtId}" fontId="${fontId}" fillId="${fillId}" borderId="0" xfId="0"${apply}`;
    const id = this.#xfs.length;
    this.#xfs.push(
      s.verticalAlign ? `<xf ${attrs}><alignment vertical="${s.verticalAlign}"/></xf>` : `<xf ${attrs}/>`,
    );
    this.#ids.set(key, id);
    return id;
  }

  #add(list: string[], item: string): number {
    const at = list.indexOf(item);
    if (at >= 0) return at;
    list.push(item);
    return list.length - 1;
  }

  xml(): string {
    const numFmts = this.#numberFormats
      .map((code, i) => `<numFmt numFmtId="${i + FIRST_CUSTOM_FORMAT}" formatCode="${escapeXml(code)}"/>`)
      .join('');
    return (
      `${XML_HEAD}<styleSheet xmlns="${MAIN_NS}">` +
      (numFmts ? `<numFmts count="${this.#numberFormats.length}">${numFmts}</numFmts>` : '') +
      `<fonts count="${this.#fonts.length}">${this.#fonts.map((f) => `<font>${f}</font>`).join('')}</fonts>` +
      `<fills count="${this.#fills.length}">${this.#fills.map((f) => `<fill>${f}</fill>`).join('')}</fills>` +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="${this.#xfs.length}">${this.#xfs.join('')}</cellXfs>` +
      '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
      '<dxfs count="0"/><tableStyles count="0"/>' +
      '</styleSheet>'
    );
  }
}

/** The shared strings part: each distinct text once, in first-use order. */
class SharedStrings {
  readonly #index = new Map<string, number>();
  #uses = 0;

  id(text: string): number {
    this.#uses++;
    let id = this.#index.get(text);
    if (id === undefined) {
      id = this.#index.size;
      this.#index.set(text, id);
    }
    return id;
  }

  xml(): string {
    const items = [...this.#index.keys()].map((text) => {
      const space = /^\s|\s$/.test(text) ? ' xml:space="preserve"' : '';
      return `<si><t${space}>${escapeXml(encodeCellText(text))}</t></si>`;
    });
    return `${XML_HEAD}<sst xmlns="${MAIN_NS}" count="${this.#uses}" uniqueCount="${items.length}">${items.join('')}</sst>`;
  }
}

function argb(color: string): string {
  if (!/^[0-9A-Fa-f]{8}$/.test(color)) throw new Error(`Not an ARGB colour: ${color}`);
  return color.toUpperCase();
}

function numberText(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`A cell cannot hold ${n}`);
  return String(n);
}

function isFormula(value: NewCell): value is FormulaCell {
  return typeof value === 'object' && value !== null && !(value instanceof Date);
}

/** The `<c>` element of one value, or '' for an empty cell. */
function cellXml(
  ref: string,
  value: NewCell,
  style: CellStyle | undefined,
  styles: Styles,
  strings: SharedStrings,
): string {
  if (value === null || value === undefined || value === '') return '';
  const s = (cellStyle: CellStyle | undefined) => {
    const id = styles.id(cellStyle);
    return id ? ` s="${id}"` : '';
  };
  if (typeof value === 'string') return `<c r="${ref}"${s(style)} t="s"><v>${strings.id(value)}</v></c>`;
  if (typeof value === 'number') return `<c r="${ref}"${s(style)}><v>${numberText(value)}</v></c>`;
  if (typeof value === 'boolean') return `<c r="${ref}"${s(style)} t="b"><v>${value ? 1 : 0}</v></c>`;
  if (value instanceof Date) {
    // A date is a serial number that only a date format shows as a date.
    const dated = hasFormat(style) ? style : { ...style, numFmt: DEFAULT_DATE_FORMAT };
    const serial = EXCEL_1900.serial(value, false);
    if (serial === null) throw new Error(`Not a date Excel shows: ${value.toISOString()}`);
    return `<c r="${ref}"${s(dated)}><v>${numberText(serial)}</v></c>`;
  }
  if (!isFormula(value)) throw new Error(`Not a cell value: ${String(value)}`);
  const f = `<f>${escapeXml(value.formula.replace(/^=/, ''))}</f>`;
  const { result } = value;
  if (result === undefined) return `<c r="${ref}"${s(style)}>${f}</c>`;
  if (typeof result === 'string') {
    return `<c r="${ref}"${s(style)} t="str">${f}<v>${escapeXml(encodeCellText(result))}</v></c>`;
  }
  if (typeof result === 'boolean') return `<c r="${ref}"${s(style)} t="b">${f}<v>${result ? 1 : 0}</v></c>`;
  return `<c r="${ref}"${s(style)}>${f}<v>${numberText(result)}</v></c>`;
}

function sheetXml(tab: NewTab, first: boolean, styles: Styles, strings: SharedStrings): string {
  const columns = tab.columns ?? [];
  // Column styles first, so style ids follow the columns' order.
  const cols = columns
    .map((column, i) => {
      const style = column.style ? ` style="${styles.id(column.style)}"` : '';
      const width = column.width === undefined ? '' : ` width="${numberText(column.width)}" customWidth="1"`;
      return width || style ? `<col min="${i + 1}" max="${i + 1}"${width}${style}/>` : '';
    })
    .join('');
  let lastColumn = 0;
  let lastRow = 0;
  const rows: string[] = [];
  tab.rows.forEach((row, r) => {
    const cells = row
      .map((value, c) => {
        const style = r === 0 && tab.headerStyle ? tab.headerStyle : columns[c]?.style;
        const xml = cellXml(cellRef(c + 1, r + 1), value, style, styles, strings);
        if (xml) lastColumn = Math.max(lastColumn, c + 1);
        return xml;
      })
      .join('');
    if (!cells) return;
    lastRow = r + 1;
    rows.push(`<row r="${r + 1}">${cells}</row>`);
  });
  const dimension = lastRow ? `A1:${cellRef(Math.max(lastColumn, 1), lastRow)}` : 'A1';
  const frozen = tab.frozenRows ?? 0;
  const below = `A${frozen + 1}`;
  const pane = frozen
    ? `<pane ySplit="${frozen}" topLeftCell="${below}" activePane="bottomLeft" state="frozen"/>` +
      `<selection pane="bottomLeft" activeCell="${below}" sqref="${below}"/>`
    : '';
  return (
    `${XML_HEAD}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
    `<dimension ref="${dimension}"/>` +
    `<sheetViews><sheetView${first ? ' tabSelected="1"' : ''} workbookViewId="0">${pane}</sheetView></sheetViews>` +
    '<sheetFormatPr defaultRowHeight="15"/>' +
    (cols ? `<cols>${cols}</cols>` : '') +
    `<sheetData>${rows.join('')}</sheetData>` +
    '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>' +
    '</worksheet>'
  );
}

function checkNames(tabs: readonly NewTab[]): void {
  if (tabs.length === 0) throw new Error('A workbook needs at least one tab');
  const seen = new Set<string>();
  for (const { name } of tabs) {
    if (name.length < 1 || name.length > 31 || /[[\]:*?/\\]/.test(name) || /^'|'$/.test(name)) {
      throw new Error(`Not a tab name Excel accepts: ${JSON.stringify(name)}`);
    }
    if (seen.has(name.toLowerCase())) throw new Error(`Two tabs named ${JSON.stringify(name)}`);
    seen.add(name.toLowerCase());
  }
}

function coreXml(creator: string | undefined, created: Date | undefined): string {
  const when = created ? created.toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined;
  return (
    `${XML_HEAD}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties"` +
    ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/"' +
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    (creator === undefined ? '' : `<dc:creator>${escapeXml(creator)}</dc:creator>`) +
    (when === undefined
      ? ''
      : `<dcterms:created xsi:type="dcterms:W3CDTF">${when}</dcterms:created>` +
        `<dcterms:modified xsi:type="dcterms:W3CDTF">${when}</dcterms:modified>`) +
    '</cp:coreProperties>'
  );
}

/** The bytes of a new .xlsx file holding `book`. */
export function newWorkbook(book: NewWorkbook): Uint8Array {
  checkNames(book.tabs);
  const styles = new Styles();
  const strings = new SharedStrings();
  const sheets = book.tabs.map((tab, i) => sheetXml(tab, i === 0, styles, strings));
  const withCore = book.creator !== undefined || book.created !== undefined;
  const n = sheets.length;
  const rel = (id: string, type: string, target: string) =>
    `<Relationship Id="${id}" Type="${type}" Target="${target}"/>`;

  const contentTypes =
    `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    `<Override PartName="/xl/workbook.xml" ContentType="${OFFICE_TYPE}.spreadsheetml.sheet.main+xml"/>` +
    sheets
      .map(
        (_, i) =>
          `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="${OFFICE_TYPE}.spreadsheetml.worksheet+xml"/>`,
      )
      .join('') +
    `<Override PartName="/xl/styles.xml" ContentType="${OFFICE_TYPE}.spreadsheetml.styles+xml"/>` +
    `<Override PartName="/xl/sharedStrings.xml" ContentType="${OFFICE_TYPE}.spreadsheetml.sharedStrings+xml"/>` +
    (withCore
      ? '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
      : '') +
    '</Types>';
  const rootRels =
    `${XML_HEAD}<Relationships xmlns="${PACKAGE_RELS_NS}">` +
    rel('rId1', `${REL_NS}/officeDocument`, 'xl/workbook.xml') +
    (withCore
      ? rel(
          'rId2',
          'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties',
          'docProps/core.xml',
        )
      : '') +
    '</Relationships>';
  const workbook =
    `${XML_HEAD}<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
    '<bookViews><workbookView activeTab="0"/></bookViews><sheets>' +
    book.tabs
      .map((tab, i) => `<sheet name="${escapeXml(tab.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
      .join('') +
    '</sheets></workbook>';
  const workbookRels =
    `${XML_HEAD}<Relationships xmlns="${PACKAGE_RELS_NS}">` +
    sheets.map((_, i) => rel(`rId${i + 1}`, `${REL_NS}/worksheet`, `worksheets/sheet${i + 1}.xml`)).join('') +
    rel(`rId${n + 1}`, `${REL_NS}/styles`, 'styles.xml') +
    rel(`rId${n + 2}`, `${REL_NS}/sharedStrings`, 'sharedStrings.xml') +
    '</Relationships>';

  const utf8 = (text: string) => Buffer.from(text, 'utf8');
  const parts = new Map<string, Uint8Array>([
    ['[Content_Types].xml', utf8(contentTypes)],
    ['_rels/.rels', utf8(rootRels)],
    ['xl/workbook.xml', utf8(workbook)],
    ['xl/_rels/workbook.xml.rels', utf8(workbookRels)],
    ['xl/styles.xml', utf8(styles.xml())],
    ['xl/sharedStrings.xml', utf8(strings.xml())],
  ]);
  sheets.forEach((xml, i) => {
    parts.set(`xl/worksheets/sheet${i + 1}.xml`, utf8(xml));
  });
  if (withCore) parts.set('docProps/core.xml', utf8(coreXml(book.creator, book.created)));
  // Zip entries carry a local wall-clock time: the creation time's UTC fields, so the bytes do not depend on
  // the machine's time zone.
  const at = book.created ?? EPOCH;
  const stamp = new Date(
    at.getUTCFullYear(),
    at.getUTCMonth(),
    at.getUTCDate(),
    at.getUTCHours(),
    at.getUTCMinutes(),
    at.getUTCSeconds(),
  );
  return newZip(parts, stamp);
}
