/**
 * The cells of a worksheet part through saxes, a full XML parser: for the parts the fast scanner leaves alone
 * (comments or CDATA inside the cells, a DTD, unknown entities). Reports the same cells the same way.
 */
import { SaxesParser } from 'saxes';
import { parseCellRef } from './cell-ref.ts';
import type { CellSink, ScannedCell, SheetScan } from './scanned-cell.ts';

const localName = (name: string) => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

type Attributes = Record<string, string>;

/** Where the parse is in the part, and the cell being read. */
class CellReader {
  readonly merges: string[] = [];
  readonly #sink: CellSink;
  #inSheetData = false;
  #rowNumber = 0;
  #columnNumber = 0;
  #cell: ScannedCell | null = null;
  #collecting: 'v' | 't' | 'f' | null = null;
  #phonetic = 0;
  #text = '';

  constructor(sink: CellSink) {
    this.#sink = sink;
  }

  open(tagName: string, attrs: Attributes): void {
    const name = localName(tagName);
    if (!this.#inSheetData) {
      if (name === 'sheetData') this.#inSheetData = true;
      else if (name === 'mergeCell' && attrs.ref) this.merges.push(attrs.ref);
      return;
    }
    switch (name) {
      case 'row': {
        const r = Number(attrs.r);
        this.#rowNumber = Number.isInteger(r) && r > 0 ? r : this.#rowNumber + 1;
        this.#columnNumber = 0;
        break;
      }
      case 'c':
        this.#openCell(attrs);
        break;
      case 'f':
        if (this.#cell) {
          this.#cell.formula = '';
          this.#cell.formulaType = attrs.t;
          this.#cell.sharedIndex = attrs.si;
          this.#cell.formulaRef = attrs.ref;
          this.#collecting = 'f';
          this.#text = '';
        }
        break;
      case 'v':
        this.#collecting = 'v';
        this.#text = '';
        break;
      case 'rPh':
        this.#phonetic++;
        break;
      case 't':
        if (this.#cell && this.#phonetic === 0) {
          this.#collecting = 't';
          if (this.#cell.value === undefined) this.#cell.value = '';
        }
        break;
    }
  }

  #openCell(attrs: Attributes): void {
    const at = attrs.r === undefined ? undefined : parseCellRef(attrs.r);
    if (at) {
      this.#columnNumber = at.column;
      if (at.row !== this.#rowNumber) this.#rowNumber = at.row;
    } else this.#columnNumber++;
    const s = attrs.s === undefined ? 0 : Number(attrs.s);
    this.#cell = {
      row: this.#rowNumber,
      column: this.#columnNumber,
      style: Number.isInteger(s) && s >= 0 ? s : 0,
      type: attrs.t,
      value: undefined,
      formula: undefined,
      formulaType: undefined,
      sharedIndex: undefined,
      formulaRef: undefined,
    };
  }

  text(chunk: string): void {
    if (this.#collecting === 'v' || this.#collecting === 'f') this.#text += chunk;
    else if (this.#collecting === 't' && this.#cell) this.#cell.value += chunk;
  }

  close(tagName: string): void {
    if (!this.#inSheetData) return;
    const name = localName(tagName);
    const cell = this.#cell;
    if (name === 'v') {
      if (cell && cell.type !== 'inlineStr') cell.value = this.#text;
      this.#collecting = null;
    } else if (name === 'f') {
      if (cell) cell.formula = this.#text;
      this.#collecting = null;
    } else if (name === 't') this.#collecting = null;
    else if (name === 'rPh') this.#phonetic--;
    else if (name === 'c') {
      if (cell) this.#sink.cell(cell);
      this.#cell = null;
    } else if (name === 'sheetData') this.#inSheetData = false;
  }
}

export function scanWithSaxes(xml: string, sink: CellSink): SheetScan {
  const reader = new CellReader(sink);
  const parser = new SaxesParser({ position: false });
  parser.on('opentag', (tag) => reader.open(tag.name, tag.attributes as Attributes));
  parser.on('text', (chunk) => reader.text(chunk));
  parser.on('cdata', (chunk) => reader.text(chunk));
  parser.on('closetag', (tag) => reader.close(tag.name));
  parser.write(xml).close();
  return { merges: reader.merges };
}
