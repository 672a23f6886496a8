/**
 * The cells of a worksheet part, read fast. A worksheet's `<sheetData>` is a flat, regular grammar (rows of
 * cells holding a formula, a value or an inline string), so a scanner that walks it with `indexOf` reads a
 * 50 MB sheet several times faster than a general XML parser, and allocates nothing per cell. Anything outside
 * that grammar inside `<sheetData>` (comments, CDATA, processing instructions, a DTD before it, an entity it
 * does not know) sends the whole part to saxes instead (sheet-scan-saxes.ts), so no file reads differently
 * for being unusual: only slower.
 *
 * What a cell reports is the file's own text: its `t` attribute, its `<v>` text or inline string (runs
 * joined, phonetic guides left out), its style id and its formula; `cell-decode.ts` turns that into a value.
 */
import { parseCellRef } from './cell-ref.ts';
import { scanWithSaxes } from './sheet-scan-saxes.ts';

/** One cell as the file holds it. The scanner reuses one object: copy what you keep. */
export interface ScannedCell {
  /** 1-based row and column. */
  row: number;
  column: number;
  /** The `s` attribute (0 when absent). */
  style: number;
  /** The `t` attribute (undefined = a number). */
  type: string | undefined;
  /** `<v>` text, or the inline string's text; undefined when the cell has neither. Entities decoded. */
  value: string | undefined;
  /** `<f>` text (undefined when there is no `<f>`, '' for a shared formula's dependent). */
  formula: string | undefined;
  /** `<f t="shared" si="..">` and `ref`, for formulas shared by a range; `t="array"` too. */
  formulaType: string | undefined;
  sharedIndex: string | undefined;
  formulaRef: string | undefined;
}

export interface SheetScan {
  /** The merged ranges (`A1:B2`) listed after the cells. */
  merges: string[];
}

/** Where the cells go. `reset` forgets every cell reported so far (the scan starts over with saxes). */
export interface CellSink {
  cell(cell: ScannedCell): void;
  reset(): void;
}

/** Reads every cell of the worksheet XML `xml`, in file order, into `sink`. */
export function scanSheet(xml: string, sink: CellSink): SheetScan {
  const fast = scanFast(xml, sink);
  if (fast) return fast;
  sink.reset();
  return scanWithSaxes(xml, sink);
}

class Unsupported extends Error {}

const SHEET_DATA = /<([A-Za-z_][\w.-]*:)?sheetData\b[^>]*?(\/?)>/;
const MERGE = /<(?:[A-Za-z_][\w.-]*:)?mergeCell\b[^>]*?\bref\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

function mergesOf(tail: string): string[] {
  const merges: string[] = [];
  for (const m of tail.matchAll(MERGE)) merges.push(decodeEntities(m[1] ?? m[2] ?? ''));
  return merges;
}

/** null when the part needs a full XML parser (see the top of this file); the sink must then be reset. */
function scanFast(xml: string, sink: CellSink): SheetScan | null {
  const open = SHEET_DATA.exec(xml);
  if (!open) return { merges: [] };
  if (xml.lastIndexOf('<!DOCTYPE', open.index) >= 0) return null;
  const bodyStart = open.index + open[0].length;
  if (open[2] === '/') return { merges: mergesOf(xml.slice(bodyStart)) };
  const prefix = open[1] ?? '';
  const close = xml.indexOf(`</${prefix}sheetData>`, bodyStart);
  if (close < 0) return null;
  // Constructs outside the row grammar: leave them to the full parser.
  const special = xml.indexOf('<!', bodyStart);
  const pi = xml.indexOf('<?', bodyStart);
  if ((special >= 0 && special < close) || (pi >= 0 && pi < close)) return null;
  try {
    new Scanner(xml, prefix, bodyStart, close, sink).run();
  } catch (e) {
    if (e instanceof Unsupported) return null;
    throw e;
  }
  return { merges: mergesOf(xml.slice(close)) };
}

const SLASH = 47;
const QUOTE = 34;
const APOS = 39;
const EQUALS = 61;

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
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
  /** Attributes of the tag just read (name -> raw value, entities decoded). */
  #attrs: Record<string, string> = {};

  constructor(xml: string, prefix: string, start: number, end: number, sink: CellSink) {
    this.#xml = xml;
    this.#prefix = prefix;
    this.#at = start;
    this.#end = end;
    this.#sink = sink;
  }

  run(): void {
    let rowNumber = 0;
    for (;;) {
      const tag = this.#nextTag();
      if (tag === null) return;
      if (tag.closing) continue; // </row>
      if (tag.name === 'row') {
        const r = Number(this.#attrs.r);
        rowNumber = Number.isInteger(r) && r > 0 ? r : rowNumber + 1;
        this.#columnAfter = 0;
        continue;
      }
      if (tag.name !== 'c') throw new Unsupported();
      rowNumber = this.#cellAt(rowNumber, tag.selfClosing);
    }
  }

  #columnAfter = 0;

  /** One `<c>`: its attributes are read; reads its children and reports it. Returns the row it belongs to. */
  #cellAt(rowNumber: number, selfClosing: boolean): number {
    const cell = this.#cell;
    const ref = this.#attrs.r;
    const at = ref === undefined ? undefined : parseCellRef(ref);
    let row = rowNumber;
    if (at) {
      cell.column = at.column;
      if (at.row !== row) row = at.row;
    } else cell.column = this.#columnAfter + 1;
    this.#columnAfter = cell.column;
    cell.row = row;
    const s = this.#attrs.s === undefined ? 0 : Number(this.#attrs.s);
    cell.style = Number.isInteger(s) && s >= 0 ? s : 0;
    cell.type = this.#attrs.t;
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
    for (;;) {
      const tag = this.#nextTag();
      if (tag === null) throw new Unsupported();
      if (tag.closing) {
        if (tag.name === 'c') return;
        continue;
      }
      switch (tag.name) {
        case 'v': {
          const text = tag.selfClosing ? '' : this.#textUntil('v');
          // An inline string's value is its <is>; a stray <v> beside it is not.
          if (cell.type !== 'inlineStr') cell.value = text;
          break;
        }
        case 'f':
          cell.formulaType = this.#attrs.t;
          cell.sharedIndex = this.#attrs.si;
          cell.formulaRef = this.#attrs.ref;
          cell.formula = tag.selfClosing ? '' : this.#textUntil('f');
          break;
        case 'is':
          if (!tag.selfClosing) cell.value = this.#inlineString();
          break;
        default:
          // extLst and whatever a later Excel adds: not part of the value.
          if (!tag.selfClosing) this.#skipElement(tag.name);
      }
    }
  }

  /** The text of an `<is>`: every `<t>` outside `<rPh>`, joined. */
  #inlineString(): string {
    let text = '';
    let phonetic = 0;
    for (;;) {
      const tag = this.#nextTag();
      if (tag === null) throw new Unsupported();
      if (tag.closing) {
        if (tag.name === 'is') return text;
        if (tag.name === 'rPh') phonetic--;
        continue;
      }
      if (tag.selfClosing) continue;
      if (tag.name === 'rPh') phonetic++;
      else if (tag.name === 't') {
        const t = this.#textUntil('t');
        if (phonetic === 0) text += t;
      }
    }
  }

  /** Skips past the end of an element whose start tag was just read (nested elements of any kind). */
  #skipElement(name: string): void {
    let depth = 1;
    for (;;) {
      const tag = this.#nextTag();
      if (tag === null) throw new Unsupported();
      if (tag.selfClosing) continue;
      if (tag.closing) {
        depth--;
        if (depth === 0) {
          if (tag.name !== name) throw new Unsupported();
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

  /** The next tag in the body: its local name, whether it closes or is self-closing; attributes in #attrs. */
  #nextTag(): { name: string; closing: boolean; selfClosing: boolean } | null {
    const xml = this.#xml;
    const lt = xml.indexOf('<', this.#at);
    if (lt < 0 || lt >= this.#end) {
      this.#at = this.#end;
      return null;
    }
    // Text between tags inside sheetData is whitespace in any file a spreadsheet writes.
    for (let i = this.#at; i < lt; i++) if (!isSpace(xml.charCodeAt(i))) throw new Unsupported();
    const gt = xml.indexOf('>', lt);
    if (gt < 0 || gt > this.#end) throw new Unsupported();
    let p = lt + 1;
    const closing = xml.charCodeAt(p) === SLASH;
    if (closing) p++;
    const nameStart = p;
    while (p < gt) {
      const code = xml.charCodeAt(p);
      if (isSpace(code) || code === SLASH) break;
      p++;
    }
    let name = xml.slice(nameStart, p);
    if (this.#prefix !== '' || name.includes(':')) {
      const colon = name.indexOf(':');
      if (colon >= 0) name = name.slice(colon + 1);
    }
    const selfClosing = !closing && xml.charCodeAt(gt - 1) === SLASH;
    this.#attrs = closing ? {} : this.#readAttributes(p, selfClosing ? gt - 1 : gt);
    this.#at = gt + 1;
    return { name, closing, selfClosing };
  }

  #readAttributes(from: number, to: number): Record<string, string> {
    const xml = this.#xml;
    const attrs: Record<string, string> = {};
    let p = from;
    while (p < to) {
      while (p < to && isSpace(xml.charCodeAt(p))) p++;
      if (p >= to) break;
      const nameStart = p;
      while (p < to && xml.charCodeAt(p) !== EQUALS && !isSpace(xml.charCodeAt(p))) p++;
      const name = xml.slice(nameStart, p);
      while (p < to && isSpace(xml.charCodeAt(p))) p++;
      if (xml.charCodeAt(p) !== EQUALS) throw new Unsupported();
      p++;
      while (p < to && isSpace(xml.charCodeAt(p))) p++;
      const quote = xml.charCodeAt(p);
      if (quote !== QUOTE && quote !== APOS) throw new Unsupported();
      const valueEnd = xml.indexOf(quote === QUOTE ? '"' : "'", p + 1);
      if (valueEnd < 0 || valueEnd >= to) throw new Unsupported();
      const raw = xml.slice(p + 1, valueEnd);
      attrs[name] = raw.includes('&') ? decodeEntities(raw) : raw;
      p = valueEnd + 1;
    }
    return attrs;
  }
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML's five named entities and character references; anything else is not for this scanner. */
export function decodeEntities(text: string): string {
  return text.replace(/&([^;&]*);?/g, (whole, body: string) => {
    if (!whole.endsWith(';')) throw new Unsupported();
    const named = NAMED[body];
    if (named !== undefined) return named;
    const code = body.startsWith('#x')
      ? Number.parseInt(body.slice(2), 16)
      : body.startsWith('#')
        ? Number.parseInt(body.slice(1), 10)
        : Number.NaN;
    if (!Number.isInteger(code) || code < 0 || code > 0x10ffff) throw new Unsupported();
    return String.fromCodePoint(code);
  });
}
