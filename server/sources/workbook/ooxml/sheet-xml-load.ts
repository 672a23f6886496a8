/**
 * A worksheet part read into a `SheetXml` from its compressed bytes without holding the service: the part is
 * inflated on the thread pool a megabyte at a time, cut into rows as it comes, and each piece of rows is
 * compressed again on the thread pool as soon as it is complete. A sheet of a million rows is never one string
 * here, and the service answers between the chunks. What the text constructor of SheetXml does at once, for
 * a part of any size; a part whose rows are out of order is left to it (answered null).
 */
import { StringDecoder } from 'node:string_decoder';
import { pacer } from '../../../lib/pacer.ts';
import { PartTooLarge } from '../guard/zip-directory.ts';
import { inflatedChunks } from './inflated-chunks.ts';
import { RowPiece, type RowSlot } from './row-piece.ts';
import { ROWS_PER_PIECE, SheetXml } from './sheet-xml.ts';
import { getAttr } from './xml-text.ts';

/** A fresh copy of a string: a slice of a chunk would keep the whole chunk alive. */
const detached = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

const SHEET_DATA = /<([A-Za-z_][\w.-]*:)?sheetData\b[^>]*?(\/?)>/;

/** Cuts the text of a part, fed in order, into head, rows and tail. */
class RowCutter {
  prefix = '';
  head: string | null = null;
  tail: string | null = null;
  readonly pieces: RowPiece[] = [];
  ordered = true;
  #text = '';
  #rows: RowSlot[] = [];
  #previous = 0;
  #closing: Promise<unknown>[] = [];

  /** Takes the next text; answers a promise to wait for when enough compression is under way. */
  feed(text: string): Promise<unknown> | undefined {
    this.#text += text;
    if (this.head === null && !this.#cutHead()) return undefined;
    if (this.tail === null) this.#cutRows();
    if (this.tail !== null && this.#text !== '') {
      this.tail += this.#text;
      this.#text = '';
    }
    return this.#closing.length > 4 ? this.#closing.shift() : undefined;
  }

  async end(): Promise<boolean> {
    this.#endPiece();
    await Promise.all(this.#closing);
    return this.head !== null && this.tail !== null && this.ordered;
  }

  #cutHead(): boolean {
    const open = SHEET_DATA.exec(this.#text);
    if (!open) return false;
    this.prefix = open[1] ?? '';
    const bodyStart = open.index + open[0].length;
    if (open[2] === '/') {
      this.head = detached(`${this.#text.slice(0, open.index)}<${this.prefix}sheetData>`);
      this.tail = detached(`</${this.prefix}sheetData>${this.#text.slice(bodyStart)}`);
      this.#text = '';
      return true;
    }
    this.head = detached(this.#text.slice(0, bodyStart));
    this.#text = this.#text.slice(bodyStart);
    return true;
  }

  /** The complete rows of the text so far (what the text constructor's row pattern matches). */
  #cutRows(): void {
    const text = this.#text;
    const rowTag = `<${this.prefix}row`;
    const rowEnd = `</${this.prefix}row>`;
    const close = `</${this.prefix}sheetData>`;
    let at = 0;
    // Where the rows end, if this text holds it: looked for once (each row looking again would be quadratic).
    const end = text.indexOf(close);
    for (;;) {
      const start = text.indexOf(rowTag, at);
      if (end >= 0 && (start < 0 || end < start)) {
        this.tail = detached(text.slice(end));
        this.#text = '';
        return;
      }
      if (start < 0) break;
      const after = text.charAt(start + rowTag.length);
      if (after === '') break; // the tag's name may go on in the next chunk
      if (!/[\s/>]/.test(after)) {
        at = start + rowTag.length;
        continue;
      }
      const tagEnd = text.indexOf('>', start);
      if (tagEnd < 0) break;
      const rowClose = text.charAt(tagEnd - 1) === '/' ? tagEnd + 1 : text.indexOf(rowEnd, tagEnd);
      if (rowClose < 0) break;
      const stop = text.charAt(tagEnd - 1) === '/' ? rowClose : rowClose + rowEnd.length;
      // Not detached: the piece is compressed and its texts let go at once (a copy per row cost more than the rest).
      this.#row(text.slice(start, tagEnd + 1), text.slice(start, stop));
      at = stop;
    }
    this.#text = text.slice(at);
  }

  #row(startTag: string, xml: string): void {
    const r = Number(getAttr(startTag, 'r'));
    const number = Number.isInteger(r) && r > 0 ? r : this.#previous + 1;
    if (number <= this.#previous) this.ordered = false;
    this.#previous = number;
    this.#rows.push({ number, xml });
    if (this.#rows.length >= ROWS_PER_PIECE) this.#endPiece();
  }

  #endPiece(): void {
    if (this.#rows.length === 0) return;
    const piece = new RowPiece(this.#rows);
    this.#rows = [];
    this.pieces.push(piece);
    this.#closing.push(piece.closeAsync());
  }
}

/**
 * The sheet part `data` (its compressed bytes, `method` 8, or stored, 0), or null when the text constructor
 * must. It inflates to at most `size` bytes, what the directory says (and the parse thread checked).
 */
export async function loadSheetXml(
  data: Uint8Array,
  method: number,
  size: number,
  /** How much text is cut at a time (tests cut at every byte boundary with small ones). */
  chunkBytes = 1 << 20,
): Promise<SheetXml | null> {
  const cutter = new RowCutter();
  const decoder = new StringDecoder('utf8');
  let first = true;
  const pace = pacer();
  const feed = async (chunk: Buffer) => {
    let text = decoder.write(chunk);
    if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text !== '') first = false; // a byte order mark may come a byte at a time
    await cutter.feed(text);
    await pace();
  };
  try {
    for await (const chunk of inflatedChunks(data, method, size, chunkBytes)) await feed(chunk);
  } catch (e) {
    if (e instanceof PartTooLarge) return null; // more than the directory says: the text constructor's read refuses it
    throw e;
  }
  await cutter.feed(decoder.end());
  if (!(await cutter.end())) return null;
  return new SheetXml({
    prefix: cutter.prefix,
    head: cutter.head as string,
    tail: cutter.tail as string,
    pieces: cutter.pieces,
  });
}
