/**
 * The scanner of a worksheet's `<sheetData>` body over its UTF-8 bytes (what sheet-scan.ts runs): rows and
 * cells read in place, plain cells in one pass (sheet-scan-plain.ts), the rest through a general walk of the
 * tags that reports each cell's own text. Anything outside the grammar throws Unsupported.
 */
import type { CellSink, FastCellSink, ScannedCell } from './scanned-cell.ts';
import { type PlainCell, readPlainCell } from './sheet-scan-plain.ts';
import {
  attributeOf,
  attributeValueEnd,
  attributeValueStart,
  BANG,
  COLON,
  cellType,
  digits,
  GT,
  isNameEnd,
  isSpace,
  LT,
  plainNumber,
  QUESTION,
  type Ref,
  readRef,
  SLASH,
  sameBytes,
  textOf,
  Unsupported,
} from './sheet-scan-text.ts';

const ROW = Buffer.from('row');
const C = Buffer.from('c');
const V = Buffer.from('v');
const F = Buffer.from('f');
const IS = Buffer.from('is');
const T = Buffer.from('t');
const R_PH = Buffer.from('rPh');
const EMPTY = Buffer.alloc(0);

/** What the cell being read holds in `<v>`: nothing, a range of the part's bytes, or a text already made. */
const NO_VALUE = 0;
const VALUE_BYTES = 1;
const VALUE_TEXT = 2;

/** The scanner of `<sheetData>`'s body, fed a stretch of whole rows at a time (`scan`). */
export class SheetScanner {
  readonly #sink: CellSink;
  readonly #fast: FastCellSink | null;
  #prefix: Buffer = EMPTY;
  #b: Buffer = EMPTY;
  #at = 0;
  #end = 0;
  // Carried from one stretch to the next: the row being read, and the last column met in it.
  #rowNumber = 0;
  #columnAfter = 0;
  // The tag just read: its local name, whether it closes or closes itself, where its attributes are.
  #nameStart = 0;
  #nameEnd = 0;
  #closing = false;
  #selfClosing = false;
  #tagStart = 0;
  #tagEnd = 0;
  // What #readAttributes found on a <row> or <c> tag.
  readonly #ref: Ref = { rowAttr: 0, refColumn: 0, refRow: 0 };
  #styleAttr = 0;
  #typeStart = -1;
  #typeEnd = -1;
  // The cell's <v>.
  #valueKind = NO_VALUE;
  #valueStart = 0;
  #valueEnd = 0;
  #valueText = '';
  // The last #textUntil's range.
  #textStart = 0;
  #textEnd = 0;
  readonly #plain: PlainCell = { column: 0, row: 0, style: 0, kind: 0, value: 0 };
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

  constructor(sink: CellSink) {
    this.#sink = sink;
    this.#fast = 'numberCell' in sink ? (sink as FastCellSink) : null;
  }

  /** The namespace prefix of the part's `sheetData` (`x:`), which its rows and cells share. */
  set prefix(prefix: string) {
    this.#prefix = Buffer.from(prefix, 'utf8');
  }

  /** Reads bytes `from`..`to` of `b`: whole rows (or cells), nothing cut in two. */
  scan(b: Buffer, from: number, to: number): void {
    this.#b = b;
    this.#at = from;
    this.#end = to;
    const fast = this.#prefix.length === 0 ? this.#fast : null;
    for (;;) {
      if (fast) this.#plainCells(fast);
      if (!this.#nextTag()) return;
      if (this.#closing) continue; // </row>
      if (this.#is(ROW)) {
        this.#readAttributes();
        const r = this.#ref.rowAttr;
        this.#rowNumber = r > 0 ? r : this.#rowNumber + 1;
        this.#columnAfter = 0;
        continue;
      }
      if (!this.#is(C)) throw new Unsupported();
      this.#cellAt();
    }
  }

  /** The plain cells from here on (sheet-scan-plain.ts), as long as they come. */
  #plainCells(fast: FastCellSink): void {
    const b = this.#b;
    const end = this.#end;
    const plain = this.#plain;
    let at = this.#at;
    while (b[at] === LT && b[at + 1] === 99) {
      const next = readPlainCell(b, at, end, plain);
      if (next < 0) break;
      const row = plain.row;
      if (row !== this.#rowNumber) this.#rowNumber = row;
      this.#columnAfter = plain.column;
      if (plain.kind === 0) fast.numberCell(row, plain.column, plain.style, plain.value);
      else if (plain.kind === 1) fast.sharedStringCell(row, plain.column, plain.value);
      else fast.booleanCell(row, plain.column, plain.value !== 0);
      at = next;
    }
    this.#at = at;
  }

  /** One `<c>` (its start tag just read): its attributes and children, reported. */
  #cellAt(): void {
    const cell = this.#cell;
    const selfClosing = this.#selfClosing;
    this.#readAttributes();
    let row = this.#rowNumber;
    let column: number;
    const ref = this.#ref;
    if (ref.refColumn > 0) {
      column = ref.refColumn;
      if (ref.refRow > 0 && ref.refRow !== row) row = ref.refRow;
    } else column = this.#columnAfter + 1;
    this.#columnAfter = column;
    this.#rowNumber = row;
    this.#valueKind = NO_VALUE;
    cell.formula = undefined;
    cell.formulaType = undefined;
    cell.sharedIndex = undefined;
    cell.formulaRef = undefined;
    const typeStart = this.#typeStart;
    const typeEnd = this.#typeEnd;
    const style = this.#styleAttr;
    if (!selfClosing) this.#cellChildren(typeStart, typeEnd);
    const b = this.#b;
    const fast = this.#fast;
    if (fast && cell.formula === undefined && this.#valueKind === VALUE_BYTES) {
      const start = this.#valueStart;
      const end = this.#valueEnd;
      if (typeStart < 0 || (typeEnd - typeStart === 1 && b[typeStart] === 110)) {
        const n = plainNumber(b, start, end);
        if (!Number.isNaN(n)) {
          fast.numberCell(row, column, style, n);
          return;
        }
      } else if (typeEnd - typeStart === 1 && b[typeStart] === 115 && end > start && end - start <= 9) {
        const index = digits(b, start, end);
        if (index >= 0) {
          fast.sharedStringCell(row, column, index);
          return;
        }
      }
    }
    cell.row = row;
    cell.column = column;
    cell.style = style;
    cell.type = typeStart < 0 ? undefined : cellType(b, typeStart, typeEnd);
    cell.value =
      this.#valueKind === NO_VALUE
        ? undefined
        : this.#valueKind === VALUE_TEXT
          ? this.#valueText
          : textOf(b, this.#valueStart, this.#valueEnd);
    this.#sink.cell(cell);
  }

  #cellChildren(typeStart: number, typeEnd: number): void {
    const cell = this.#cell;
    const inline = sameBytes(this.#b, typeStart, typeEnd, INLINE_STR);
    for (;;) {
      if (!this.#nextTag()) throw new Unsupported();
      if (this.#closing) {
        if (this.#is(C)) return;
        continue;
      }
      if (this.#is(V)) {
        // An inline string's value is its <is>; a stray <v> beside it is not.
        if (this.#selfClosing) {
          if (!inline) this.#setValueText('');
        } else {
          this.#textUntil(V);
          if (!inline) {
            this.#valueKind = VALUE_BYTES;
            this.#valueStart = this.#textStart;
            this.#valueEnd = this.#textEnd;
          }
        }
      } else if (this.#is(F)) {
        cell.formulaType = attributeOf(this.#b, this.#tagStart, this.#tagEnd, T);
        cell.sharedIndex = attributeOf(this.#b, this.#tagStart, this.#tagEnd, SI);
        cell.formulaRef = attributeOf(this.#b, this.#tagStart, this.#tagEnd, REF);
        if (this.#selfClosing) cell.formula = '';
        else {
          this.#textUntil(F);
          cell.formula = textOf(this.#b, this.#textStart, this.#textEnd);
        }
      } else if (this.#is(IS)) {
        if (!this.#selfClosing) this.#setValueText(this.#inlineString());
      } else if (!this.#selfClosing) {
        // extLst and whatever a later Excel adds: not part of the value.
        this.#skipElement(this.#nameStart, this.#nameEnd);
      }
    }
  }

  #setValueText(text: string): void {
    this.#valueKind = VALUE_TEXT;
    this.#valueText = text;
  }

  /** The text of an `<is>`: every `<t>` outside `<rPh>`, joined. */
  #inlineString(): string {
    let text = '';
    let phonetic = 0;
    for (;;) {
      if (!this.#nextTag()) throw new Unsupported();
      if (this.#closing) {
        if (this.#is(IS)) return text;
        if (this.#is(R_PH)) phonetic--;
        continue;
      }
      if (this.#selfClosing) continue;
      if (this.#is(R_PH)) phonetic++;
      else if (this.#is(T)) {
        this.#textUntil(T);
        if (phonetic === 0) text += textOf(this.#b, this.#textStart, this.#textEnd);
      }
    }
  }

  /** Skips past the end of an element whose start tag was just read (nested elements of any kind). */
  #skipElement(nameStart: number, nameEnd: number): void {
    let depth = 1;
    const b = this.#b;
    for (;;) {
      if (!this.#nextTag()) throw new Unsupported();
      if (this.#selfClosing) continue;
      if (this.#closing) {
        depth--;
        if (depth === 0) {
          if (!sameBytes(b, this.#nameStart, this.#nameEnd, b.subarray(nameStart, nameEnd)))
            throw new Unsupported();
          return;
        }
      } else depth++;
    }
  }

  /** Text up to the end tag of `name` (no markup inside): its range in #textStart..#textEnd. */
  #textUntil(name: Uint8Array): void {
    const b = this.#b;
    const end = this.#end;
    let p = this.#at;
    while (p < end && b[p] !== LT) p++;
    // The first `<` must open the end tag: text holds no markup.
    const prefix = this.#prefix;
    let q = p + 2;
    if (p >= end || b[p + 1] !== SLASH) throw new Unsupported();
    for (let i = 0; i < prefix.length; i++, q++) if (b[q] !== prefix[i]) throw new Unsupported();
    for (let i = 0; i < name.length; i++, q++) if (b[q] !== name[i]) throw new Unsupported();
    while (q < end && b[q] !== GT) q++;
    if (q >= end) throw new Unsupported();
    this.#textStart = this.#at;
    this.#textEnd = p;
    this.#at = q + 1;
  }

  /** Reads the next tag of the stretch; false at its end. */
  #nextTag(): boolean {
    const b = this.#b;
    const end = this.#end;
    let p = this.#at;
    // Text between tags inside sheetData is whitespace in any file a spreadsheet writes.
    while (p < end && b[p] !== LT) {
      if (!isSpace(b[p]!)) throw new Unsupported();
      p++;
    }
    if (p >= end) {
      this.#at = end;
      return false;
    }
    let gt = p + 1;
    while (gt < end && b[gt] !== GT) gt++;
    if (gt >= end) throw new Unsupported();
    p++;
    // Comments, CDATA and processing instructions are outside the row grammar: the full parser reads them.
    const first = b[p];
    if (first === BANG || first === QUESTION) throw new Unsupported();
    const closing = first === SLASH;
    if (closing) p++;
    let localStart = p;
    while (p < gt) {
      const code = b[p]!;
      if (isSpace(code) || code === SLASH) break;
      if (code === COLON) localStart = p + 1;
      p++;
    }
    this.#nameStart = localStart;
    this.#nameEnd = p;
    this.#closing = closing;
    this.#selfClosing = !closing && b[gt - 1] === SLASH;
    this.#tagStart = p;
    this.#tagEnd = this.#selfClosing ? gt - 1 : gt;
    this.#at = gt + 1;
    return true;
  }

  /**
   * The attributes a row or a cell needs (`r`, `s`, `t`), read straight from the bytes: this runs for every
   * cell of every sheet. Anything it does not expect goes to the full parser (Unsupported).
   */
  #readAttributes(): void {
    const b = this.#b;
    const end = this.#tagEnd;
    const ref = this.#ref;
    ref.rowAttr = 0;
    ref.refColumn = 0;
    ref.refRow = 0;
    this.#styleAttr = 0;
    this.#typeStart = -1;
    this.#typeEnd = -1;
    let p = this.#tagStart;
    while (p < end) {
      if (isSpace(b[p]!)) {
        p++;
        continue;
      }
      const nameStart = p;
      while (p < end && !isNameEnd(b[p]!)) p++;
      const nameLength = p - nameStart;
      const valueStart = attributeValueStart(b, p, end);
      const valueEnd = attributeValueEnd(b, valueStart, end);
      p = valueEnd + 1;
      if (nameLength !== 1) continue;
      switch (b[nameStart]) {
        case 114: // r
          readRef(b, valueStart, valueEnd, ref);
          break;
        case 115: // s
          this.#styleAttr = Math.max(0, digits(b, valueStart, valueEnd));
          break;
        case 116: // t
          this.#typeStart = valueStart;
          this.#typeEnd = valueEnd;
          break;
      }
    }
  }

  /** Whether the tag just read is named `name` (its local name). */
  #is(name: Uint8Array): boolean {
    return sameBytes(this.#b, this.#nameStart, this.#nameEnd, name);
  }
}

const INLINE_STR = Buffer.from('inlineStr');
const SI = Buffer.from('si');
const REF = Buffer.from('ref');
