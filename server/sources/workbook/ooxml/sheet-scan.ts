/**
 * The cells of a worksheet part, read fast. A worksheet's `<sheetData>` is a flat, regular grammar (rows of
 * cells holding a formula, a value or an inline string), so a scanner that walks it with `indexOf` reads a
 * 50 MB sheet several times faster than a general XML parser, and allocates nothing per cell. Anything outside
 * that grammar inside `<sheetData>` (comments, CDATA, processing instructions, a DTD before it, an entity it
 * does not know) sends the whole part to saxes instead (sheet-scan-saxes.ts), so no file reads differently
 * for being unusual: only slower.
 *
 * What a cell reports is the file's own text: its `t` attribute, its `<v>` text or inline string (runs
 * joined, phonetic guides left out), its style id and its formula; `decodeCell` (cell-decode.ts) turns that
 * into a value. The scanner's text primitives (character codes, entities, digits) are in sheet-scan-text.ts.
 */
import { mergeRefsIn } from './merged-cells.ts';
import type { CellSink, ScannedCell, SheetScan } from './scanned-cell.ts';
import { scanWithSaxes } from './sheet-scan-saxes.ts';
import {
  attributeValueEnd,
  attributeValueStart,
  BANG,
  COLON,
  cellType,
  DOLLAR,
  decodeEntities,
  digits,
  isNameEnd,
  isSpace,
  QUESTION,
  SLASH,
  Unsupported,
} from './sheet-scan-text.ts';

/** Reads every cell of the worksheet XML `xml`, in file order, into `sink`. */
export function scanSheet(xml: string, sink: CellSink): SheetScan {
  const fast = scanFast(xml, sink);
  if (fast) return fast;
  sink.reset();
  return scanWithSaxes(xml, sink);
}

const SHEET_DATA = /<([A-Za-z_][\w.-]*:)?sheetData\b[^>]*?(\/?)>/;

/** null when the part needs a full XML parser (see the top of this file); the sink must then be reset. */
function scanFast(xml: string, sink: CellSink): SheetScan | null {
  const open = SHEET_DATA.exec(xml);
  if (!open) return { merges: [] };
  if (xml.lastIndexOf('<!DOCTYPE', open.index) >= 0) return null;
  const bodyStart = open.index + open[0].length;
  if (open[2] === '/') return { merges: mergeRefsIn(xml.slice(bodyStart)) };
  const prefix = open[1] ?? '';
  const close = xml.indexOf(`</${prefix}sheetData>`, bodyStart);
  if (close < 0) return null;
  try {
    new Scanner(xml, prefix, bodyStart, close, sink).run();
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
  return { merges: mergeRefsIn(xml.slice(close)) };
}

/** The tag just read: where its local name is, whether it closes or closes itself, where its attributes are. */
interface Tag {
  nameStart: number;
  nameEnd: number;
  closing: boolean;
  selfClosing: boolean;
  /** Offsets of the tag's attributes (after the name, before `>` or `/>`) in the part. */
  start: number;
  end: number;
  /** The tag's text, sliced when an attribute is first asked for. */
  text: string | null;
}

class Scanner {
  readonly #xml: string;
  readonly #prefix: string;
  readonly #end: number;
  #at: number;
  readonly #cell: ScannedCell = {
    row: 0,
    column: 0,
    style: 0,
    type: undefined,
    value: undefined,
    formula: undefined,
    formulaType: undefined,
    sharedIndex: undefined,
    formulaRef: undefined,
  };
  readonly #sink: CellSink;
  /** The one tag object, rewritten by every read (nothing is allocated per tag). */
  readonly #tag: Tag = {
    nameStart: 0,
    nameEnd: 0,
    closing: false,
    selfClosing: false,
    start: 0,
    end: 0,
    text: null,
  };
  #columnAfter = 0;

  constructor(xml: string, prefix: string, start: number, end: number, sink: CellSink) {
    this.#xml = xml;
    this.#prefix = prefix;
    this.#at = start;
    this.#end = end;
    this.#sink = sink;
  }

  run(): void {
    let rowNumber = 0;
    const tag = this.#tag;
    while (this.#nextTag()) {
      if (tag.closing) continue; // </row>
      if (this.#is('row')) {
        this.#readAttributes();
        const r = this.#rowAttr;
        rowNumber = r > 0 ? r : rowNumber + 1;
        this.#columnAfter = 0;
        continue;
      }
      if (!this.#is('c')) throw new Unsupported();
      rowNumber = this.#cellAt(rowNumber);
    }
  }

  /** One `<c>` (its start tag just read): its attributes and children, reported. Returns its row. */
  #cellAt(rowNumber: number): number {
    const cell = this.#cell;
    const selfClosing = this.#tag.selfClosing;
    this.#readAttributes();
    let row = rowNumber;
    if (this.#refColumn > 0) {
      cell.column = this.#refColumn;
      if (this.#refRow > 0 && this.#refRow !== row) row = this.#refRow;
    } else cell.column = this.#columnAfter + 1;
    this.#columnAfter = cell.column;
    cell.row = row;
    cell.style = this.#styleAttr;
    cell.type = this.#typeAttr;
    cell.value = undefined;
    cell.formula = undefined;
    cell.formulaType = undefined;
    cell.sharedIndex = undefined;
    cell.formulaRef = undefined;
    if (!selfClosing) this.#cellChildren();
    this.#sink.cell(cell);
    return row;
  }

  #cellChildren(): void {
    const cell = this.#cell;
    const tag = this.#tag;
    for (;;) {
      if (!this.#nextTag()) throw new Unsupported();
      if (tag.closing) {
        if (this.#is('c')) return;
        continue;
      }
      if (this.#is('v')) {
        const text = tag.selfClosing ? '' : this.#textUntil('v');
        // An inline string's value is its <is>; a stray <v> beside it is not.
        if (cell.type !== 'inlineStr') cell.value = text;
      } else if (this.#is('f')) {
        cell.formulaType = this.#attr('t');
        cell.sharedIndex = this.#attr('si');
        cell.formulaRef = this.#attr('ref');
        cell.formula = tag.selfClosing ? '' : this.#textUntil('f');
      } else if (this.#is('is')) {
        if (!tag.selfClosing) cell.value = this.#inlineString();
      } else if (!tag.selfClosing) {
        // extLst and whatever a later Excel adds: not part of the value.
        this.#skipElement(this.#name());
      }
    }
  }

  /** The text of an `<is>`: every `<t>` outside `<rPh>`, joined. */
  #inlineString(): string {
    let text = '';
    let phonetic = 0;
    const tag = this.#tag;
    for (;;) {
      if (!this.#nextTag()) throw new Unsupported();
      if (tag.closing) {
        if (this.#is('is')) return text;
        if (this.#is('rPh')) phonetic--;
        continue;
      }
      if (tag.selfClosing) continue;
      if (this.#is('rPh')) phonetic++;
      else if (this.#is('t')) {
        const t = this.#textUntil('t');
        if (phonetic === 0) text += t;
      }
    }
  }

  /** Skips past the end of an element whose start tag was just read (nested elements of any kind). */
  #skipElement(name: string): void {
    let depth = 1;
    const tag = this.#tag;
    for (;;) {
      if (!this.#nextTag()) throw new Unsupported();
      if (tag.selfClosing) continue;
      if (tag.closing) {
        depth--;
        if (depth === 0) {
          if (!this.#is(name)) throw new Unsupported();
          return;
        }
      } else depth++;
    }
  }

  /** Text up to the end tag of `name` (no markup inside), entities decoded. */
  #textUntil(name: string): string {
    const endTag = `</${this.#prefix}${name}`;
    const end = this.#xml.indexOf(endTag, this.#at);
    if (end < 0 || end > this.#end) throw new Unsupported();
    const raw = this.#xml.slice(this.#at, end);
    if (raw.includes('<')) throw new Unsupported();
    const gt = this.#xml.indexOf('>', end);
    this.#at = gt + 1;
    return raw.includes('&') ? decodeEntities(raw) : raw;
  }

  /** Reads the next tag of the body into #tag; false at the end of the body. */
  #nextTag(): boolean {
    const xml = this.#xml;
    const lt = xml.indexOf('<', this.#at);
    if (lt < 0 || lt >= this.#end) {
      this.#at = this.#end;
      return false;
    }
    // Text between tags inside sheetData is whitespace in any file a spreadsheet writes.
    for (let i = this.#at; i < lt; i++) if (!isSpace(xml.charCodeAt(i))) throw new Unsupported();
    const gt = xml.indexOf('>', lt);
    if (gt < 0 || gt > this.#end) throw new Unsupported();
    let p = lt + 1;
    // Comments, CDATA and processing instructions are outside the row grammar: the full parser reads them.
    const first = xml.charCodeAt(p);
    if (first === BANG || first === QUESTION) throw new Unsupported();
    const closing = first === SLASH;
    if (closing) p++;
    const nameStart = p;
    while (p < gt) {
      const code = xml.charCodeAt(p);
      if (isSpace(code) || code === SLASH) break;
      p++;
    }
    let localStart = nameStart;
    for (let i = nameStart; i < p; i++) if (xml.charCodeAt(i) === COLON) localStart = i + 1;
    const tag = this.#tag;
    tag.nameStart = localStart;
    tag.nameEnd = p;
    tag.text = null;
    tag.closing = closing;
    tag.selfClosing = !closing && xml.charCodeAt(gt - 1) === SLASH;
    tag.start = p;
    tag.end = tag.selfClosing ? gt - 1 : gt;
    this.#at = gt + 1;
    return true;
  }

  // What #readAttributes found on a <row> or <c> tag.
  #rowAttr = 0;
  #refColumn = 0;
  #refRow = 0;
  #styleAttr = 0;
  #typeAttr: string | undefined = undefined;

  /**
   * The attributes a row or a cell needs (`r`, `s`, `t`), read straight from the characters: this runs for
   * every cell of every sheet. Anything it does not expect goes to the full parser (Unsupported).
   */
  #readAttributes(): void {
    const xml = this.#xml;
    const { start, end } = this.#tag;
    this.#rowAttr = 0;
    this.#refColumn = 0;
    this.#refRow = 0;
    this.#styleAttr = 0;
    this.#typeAttr = undefined;
    let p = start;
    while (p < end) {
      if (isSpace(xml.charCodeAt(p))) {
        p++;
        continue;
      }
      const nameStart = p;
      while (p < end && !isNameEnd(xml.charCodeAt(p))) p++;
      const nameLength = p - nameStart;
      const valueStart = attributeValueStart(xml, p, end);
      const valueEnd = attributeValueEnd(xml, valueStart, end);
      p = valueEnd + 1;
      if (nameLength !== 1) continue;
      switch (xml.charCodeAt(nameStart)) {
        case 114: // r
          this.#readRef(valueStart, valueEnd);
          break;
        case 115: // s
          this.#styleAttr = Math.max(0, digits(xml, valueStart, valueEnd));
          break;
        case 116: // t
          this.#typeAttr = cellType(xml, valueStart, valueEnd);
          break;
      }
    }
  }

  /** `r` of a row (`12`) or a cell (`B12`, `$B$12`), without a copy. */
  #readRef(from: number, to: number): void {
    const xml = this.#xml;
    let p = from;
    if (xml.charCodeAt(p) === DOLLAR) p++;
    let column = 0;
    let letters = 0;
    for (; p < to; p++) {
      const code = xml.charCodeAt(p) | 0x20;
      if (code < 97 || code > 122) break;
      column = column * 26 + (code - 96);
      letters++;
    }
    if (xml.charCodeAt(p) === DOLLAR) p++;
    const row = digits(xml, p, to);
    if (letters === 0) {
      this.#rowAttr = row;
      return;
    }
    if (letters > 3 || row <= 0) return; // not a reference: the cell follows the one before
    this.#refColumn = column;
    this.#refRow = row;
  }

  /** Whether the tag just read is named `name` (its local name; nothing is allocated). */
  #is(name: string): boolean {
    const { nameStart, nameEnd } = this.#tag;
    return nameEnd - nameStart === name.length && this.#xml.startsWith(name, nameStart);
  }

  /** The local name of the tag just read. */
  #name(): string {
    return this.#xml.slice(this.#tag.nameStart, this.#tag.nameEnd);
  }

  /**
   * One attribute of the tag just read (entities decoded), or undefined. The common form (` name="..."`) is
   * found directly; any other spelling (single quotes, spaces around `=`) by reading the tag's attributes.
   */
  #attr(name: string): string | undefined {
    const xml = this.#xml;
    const { start, end } = this.#tag;
    // Searched within the tag only (a sliced string costs no copy).
    this.#tag.text ??= xml.slice(start - 1, end);
    const text = this.#tag.text;
    const probe = ` ${name}="`;
    let at = text.indexOf(probe);
    if (at >= 0) {
      const valueStart = at + probe.length;
      const valueEnd = text.indexOf('"', valueStart);
      if (valueEnd < 0) throw new Unsupported();
      const raw = text.slice(valueStart, valueEnd);
      return raw.includes('&') ? decodeEntities(raw) : raw;
    }
    if (!text.includes(name)) return undefined;
    // Not in the common form: read every attribute of the tag.
    at = start;
    while (at < end) {
      while (at < end && isSpace(xml.charCodeAt(at))) at++;
      if (at >= end) break;
      const nameStart = at;
      while (at < end && !isNameEnd(xml.charCodeAt(at))) at++;
      const attrName = xml.slice(nameStart, at);
      const valueStart = attributeValueStart(xml, at, end);
      const valueEnd = attributeValueEnd(xml, valueStart, end);
      if (attrName === name) {
        const raw = xml.slice(valueStart, valueEnd);
        return raw.includes('&') ? decodeEntities(raw) : raw;
      }
      at = valueEnd + 1;
    }
    return undefined;
  }
}
