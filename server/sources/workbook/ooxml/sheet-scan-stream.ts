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

/**
 * The most of a part held before `<sheetData>` (a worksheet's head is a few views and column widths): past it,
 * the part is left to the full XML parser, so a crafted head cannot make the search for the tag quadratic.
 */
const MAX_HEAD_BYTES = 4 * 1024 * 1024;

export class SheetStream {
  readonly #scanner: SheetScanner;
  #state: 'head' | 'body' | 'tail' = 'head';
  /** What came and is not read yet: the head so far, or the start of a row the next chunks complete. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
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
        this.#hold(held);
        this.#headSearch = k;
        return;
      }
      const lt = held.lastIndexOf(LT, k);
      const open = lt < 0 ? null : SHEET_DATA.exec(held.toString('latin1', lt, gt + 1));
      if (!open) continue;
      if (held.subarray(0, lt).indexOf(DOCTYPE) >= 0) throw new Unsupported();
      const prefix = open[1] ?? '';
      this.#hold(EMPTY);
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
    if (held.length > MAX_HEAD_BYTES) throw new Unsupported();
    this.#hold(held);
    this.#headSearch = Math.max(0, held.length - SHEET_DATA_NAME.length + 1);
  }

  /**
   * The body up to the last whole row that has come: the chunk is searched (with the few bytes where it meets
   * what is held), and once a row end is found, what is held is joined to the chunk's first whole row only, the
   * rest of the chunk scanned where it lies. Only the bytes of a row cut in two are copied, each at most twice
   * however long the row is (joining every chunk whole copied each byte of the part once more: a second of a
   * million-row sheet's read).
   */
  #body(chunk: Buffer): void {
    const held = this.#pendingBytes;
    const close = this.#close;
    const rowEnd = this.#rowEnd;
    let end = this.#across(close, chunk, false);
    const closes = end >= 0;
    if (!closes) {
      const last = chunk.lastIndexOf(rowEnd);
      end = last >= 0 ? held + last + rowEnd.length : this.#across(rowEnd, chunk, true);
    }
    if (end < 0) {
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      return;
    }
    // `end` counts from the start of what is held; in `bytes` it is `end - offset`.
    let bytes = chunk;
    let offset = held;
    let from = 0;
    if (held > 0 && end <= held) {
      // The part's close starts in what is held (once a part, at most): the chunk joined whole.
      bytes = this.#joined(chunk);
      offset = 0;
      from = end;
      this.#scanner.scan(bytes, 0, end);
    } else if (held > 0) {
      const cut = Math.min(end, this.#firstRowEnd(chunk));
      this.#scanner.scan(this.#joined(chunk.subarray(0, cut - held)), 0, cut);
      from = cut - held;
    }
    if (end - offset > from) this.#scanner.scan(bytes, from, end - offset);
    if (closes) {
      this.#hold(EMPTY);
      this.#state = 'tail';
      this.#tail.push(bytes.subarray(end - offset));
      return;
    }
    // A copy: a slice would keep the whole chunk alive.
    this.#hold(Buffer.from(bytes.subarray(end - offset)));
  }

  /** Where the first row end in what is held and `chunk` together ends, counted from the start of what is held. */
  #firstRowEnd(chunk: Buffer): number {
    const rowEnd = this.#rowEnd;
    const across = this.#across(rowEnd, chunk, true);
    if (across >= 0) return across;
    const at = chunk.indexOf(rowEnd);
    return at < 0 ? Number.POSITIVE_INFINITY : this.#pendingBytes + at + rowEnd.length;
  }

  /**
   * Where `needle` starts (`close`: the first one) or ends (a row end: the last one) in what is held and the
   * chunk together, counted from the start of what is held; -1 when it is in neither. For a row end the chunk was
   * searched already: only a needle across the two is looked for.
   */
  #across(needle: Buffer, chunk: Buffer, rowEnd: boolean): number {
    const held = this.#pendingBytes;
    const before = Math.min(held, needle.length - 1);
    if (before > 0) {
      const edge = Buffer.concat([this.#lastBytes(before), chunk.subarray(0, needle.length - 1)]);
      const at = edge.indexOf(needle);
      if (at >= 0) return held - before + at + (rowEnd ? needle.length : 0);
    }
    if (rowEnd) return -1;
    const at = chunk.indexOf(needle);
    return at < 0 ? -1 : held + at;
  }

  /** The last `count` bytes held. */
  #lastBytes(count: number): Buffer {
    const parts: Buffer[] = [];
    let left = count;
    for (let i = this.#pending.length - 1; i >= 0 && left > 0; i--) {
      const part = this.#pending[i]!;
      const take = Math.min(left, part.length);
      parts.unshift(part.subarray(part.length - take));
      left -= take;
    }
    return Buffer.concat(parts);
  }

  #hold(bytes: Buffer): void {
    this.#pending = bytes.length === 0 ? [] : [bytes];
    this.#pendingBytes = bytes.length;
  }

  #joined(chunk: Buffer): Buffer {
    if (this.#pendingBytes === 0) return chunk;
    return Buffer.concat([...this.#pending, chunk]);
  }
}
