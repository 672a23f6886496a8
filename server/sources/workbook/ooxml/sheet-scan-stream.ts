/**
 * A worksheet part fed to the scanner (sheet-scan.ts) a chunk at a time, as it inflates: the head up to
 * `<sheetData>` is held until that tag is found (and checked for a DTD), the body is scanned up to the last
 * whole row of what has come (the rest waits for the next chunk), and the tail after `</sheetData>` is kept
 * for its merged cells. Only a partial row is ever carried, so a part of any size is never whole in memory.
 */
import { mergeRefsIn } from './merged-cells.ts';
import type { SheetScan } from './scanned-cell.ts';
import { GT, LT, Unsupported } from './sheet-scan-text.ts';
import type { SheetScanner } from './sheet-scanner.ts';

const SHEET_DATA = /^<([A-Za-z_][\w.-]*:)?sheetData\b[^>]*?(\/?)>$/;
const SHEET_DATA_NAME = Buffer.from('sheetData');
const DOCTYPE = Buffer.from('<!DOCTYPE');
const EMPTY = Buffer.alloc(0);

export class SheetStream {
  readonly #scanner: SheetScanner;
  #state: 'head' | 'body' | 'tail' = 'head';
  /** What came and is not read yet: the head so far, or the start of a row the next chunk completes. */
  #carry: Buffer = EMPTY;
  /** Where in the held head to look for `sheetData` next. */
  #headSearch = 0;
  #close: Buffer = EMPTY;
  #rowEnd: Buffer = EMPTY;
  readonly #tail: Buffer[] = [];

  constructor(scanner: SheetScanner) {
    this.#scanner = scanner;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (this.#state === 'head') this.#head(chunk);
    else if (this.#state === 'body') this.#body(chunk);
    else this.#tail.push(chunk);
  }

  end(): SheetScan {
    if (this.#state === 'head') return { merges: [] };
    if (this.#state === 'body') throw new Unsupported(); // no `</sheetData>`
    return { merges: mergeRefsIn(Buffer.concat(this.#tail).toString('utf8')) };
  }

  #head(chunk: Buffer): void {
    const held = this.#joined(chunk);
    for (
      let k = held.indexOf(SHEET_DATA_NAME, this.#headSearch);
      k >= 0;
      k = held.indexOf(SHEET_DATA_NAME, k + 1)
    ) {
      const gt = held.indexOf(GT, k);
      if (gt < 0) {
        this.#carry = held;
        this.#headSearch = k;
        return;
      }
      const lt = held.lastIndexOf(LT, k);
      const open = lt < 0 ? null : SHEET_DATA.exec(held.toString('latin1', lt, gt + 1));
      if (!open) continue;
      if (held.subarray(0, lt).indexOf(DOCTYPE) >= 0) throw new Unsupported();
      const prefix = open[1] ?? '';
      this.#carry = EMPTY;
      if (open[2] === '/') {
        this.#state = 'tail';
        this.#tail.push(held.subarray(gt + 1));
        return;
      }
      this.#state = 'body';
      this.#close = Buffer.from(`</${prefix}sheetData>`, 'utf8');
      this.#rowEnd = Buffer.from(`</${prefix}row>`, 'utf8');
      this.#scanner.prefix = prefix;
      this.#body(held.subarray(gt + 1));
      return;
    }
    this.#carry = held;
    this.#headSearch = Math.max(0, held.length - SHEET_DATA_NAME.length + 1);
  }

  #body(chunk: Buffer): void {
    const carried = this.#carry.length;
    const window = this.#joined(chunk);
    const close = window.indexOf(this.#close, Math.max(0, carried - this.#close.length + 1));
    if (close >= 0) {
      this.#scanner.scan(window, 0, close);
      this.#carry = EMPTY;
      this.#state = 'tail';
      this.#tail.push(window.subarray(close));
      return;
    }
    // The last row end of the new chunk, else one that straddles the carried bytes and the chunk.
    const rowEnd = this.#rowEnd;
    const inChunk = chunk.lastIndexOf(rowEnd);
    const end =
      inChunk >= 0 ? carried + inChunk : window.indexOf(rowEnd, Math.max(0, carried - rowEnd.length + 1));
    if (end < 0) {
      this.#carry = window;
      return;
    }
    const cut = end + rowEnd.length;
    this.#scanner.scan(window, 0, cut);
    // A copy: a slice would keep the whole chunk alive.
    this.#carry = Buffer.from(window.subarray(cut));
  }

  #joined(chunk: Buffer): Buffer {
    return this.#carry.length === 0 ? chunk : Buffer.concat([this.#carry, chunk]);
  }
}
