/**
 * A worksheet part held as text and edited row by row. `<sheetData>` is indexed once (where each `<row>`
 * starts and ends, no copies); edits replace whole rows, and serializing splices the edited rows between
 * the untouched text, so rows the write did not name keep their exact bytes.
 */
import { getAttr } from './xml-text.ts';

export interface RowSlot {
  number: number;
  /** The row's XML: the file's text until edited. */
  xml: string;
}

export class SheetXml {
  readonly prefix: string;
  head: string;
  /** Set by every edit: serialize rewrites the part only when true. */
  changed = false;
  /** Rows whose values an edit may have changed since the tab was last read. */
  readonly dirtyRows = new Set<number>();
  /** Rows moved (a delete): the tab must be read again as a whole. */
  moved = false;
  tail: string;
  /** Rows in sheet order, by number (a file that stored them out of order has them sorted). */
  rows: RowSlot[];
  readonly #byNumber = new Map<number, RowSlot>();

  constructor(xml: string) {
    const open = /<([A-Za-z_][\w.-]*:)?sheetData\b[^>]*?(\/?)>/.exec(xml);
    if (!open) throw new Error('the worksheet has no sheetData');
    this.prefix = open[1] ?? '';
    const bodyStart = open.index + open[0].length;
    if (open[2] === '/') {
      this.head = `${xml.slice(0, open.index)}<${this.prefix}sheetData>`;
      this.tail = `</${this.prefix}sheetData>${xml.slice(bodyStart)}`;
      this.rows = [];
      return;
    }
    const close = xml.indexOf(`</${this.prefix}sheetData>`, bodyStart);
    this.head = xml.slice(0, bodyStart);
    this.tail = xml.slice(close);
    const body = xml.slice(bodyStart, close);
    this.rows = [];
    const p = this.prefix.replace('.', '\\.');
    const row = new RegExp(`<${p}row\\b[^>]*?(?:\\/>|>[\\s\\S]*?<\\/${p}row>)`, 'g');
    let previous = 0;
    let ordered = true;
    for (const m of body.matchAll(row)) {
      const start = /^<[^>]*>/.exec(m[0])?.[0] ?? '';
      const r = Number(getAttr(start, 'r'));
      // A row's own number, as the reader takes it (rows may be stored out of order); one without follows on.
      const number = Number.isInteger(r) && r > 0 ? r : previous + 1;
      if (number <= previous) ordered = false;
      previous = number;
      const slot = { number, xml: m[0] };
      this.rows.push(slot);
      if (!this.#byNumber.has(number)) this.#byNumber.set(number, slot);
    }
    // Rows stored out of order are put in order (the order Excel writes), so edits and appends land in place.
    if (!ordered) this.rows.sort((a, b) => a.number - b.number);
  }

  row(number: number): RowSlot | undefined {
    return this.#byNumber.get(number);
  }

  /** The row, created empty in its place when the sheet has none with that number. */
  ensureRow(number: number): RowSlot {
    const known = this.#byNumber.get(number);
    if (known) return known;
    const slot = { number, xml: `<${this.prefix}row r="${number}"/>` };
    let at = this.rows.length;
    while (at > 0 && (this.rows[at - 1] as RowSlot).number > number) at--;
    this.rows.splice(at, 0, slot);
    this.#byNumber.set(number, slot);
    return slot;
  }

  /** Replace the row list (after a delete renumbered everything below). */
  setRows(rows: RowSlot[]): void {
    this.moved = true;
    this.rows = rows;
    this.#byNumber.clear();
    for (const slot of rows) this.#byNumber.set(slot.number, slot);
  }

  get lastRowNumber(): number {
    return this.rows.at(-1)?.number ?? 0;
  }

  toString(): string {
    let out = this.head;
    for (const slot of this.rows) out += slot.xml;
    return out + this.tail;
  }
}
