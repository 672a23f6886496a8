/**
 * A worksheet part read into a `SheetXml` from its compressed bytes without holding the service: the part is
 * inflated on the thread pool a megabyte at a time and cut into rows in its bytes as it comes, and each piece
 * of rows is compressed again on a piece thread (piece-threads.ts) as soon as it is complete, so it arrives
 * closed. No row becomes a string here: a sheet of a million rows costs the service's thread a search or two
 * per row, and it answers between the chunks. What the text constructor of SheetXml does at once, for a part of
 * any size; a part whose rows are out of order is left to it (answered null).
 */
import { isAscii } from 'node:buffer';
import { pacer } from '../../../lib/pacer.ts';
import { PartTooLarge } from '../guard/zip-directory.ts';
import type { DeflatedPiece } from './chunked-deflate.ts';
import { formulaFactsOfBytes } from './formula-reach.ts';
import { INFLATE_CHUNK_BYTES, inflatedChunks } from './inflated-chunks.ts';
import { deflatePieceOffThread } from './piece-threads.ts';
import { RowPiece } from './row-piece.ts';
import { ROWS_PER_PIECE, SheetXml } from './sheet-xml.ts';
import { getAttr } from './xml-text.ts';

const SHEET_DATA = /<([A-Za-z_][\w.-]*:)?sheetData\b[^>]*?(\/?)>/;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const EMPTY = Buffer.alloc(0);
const GT = 0x3e;
const SLASH = 0x2f;
const QUOTE = 0x22;

/** What may follow a tag's name: space, tab, line feed, carriage return, `/` or `>`. */
const endsName = (code: number) =>
  code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === SLASH || code === GT;

/** A piece's rows as they are cut: runs of back-to-back row bytes, and each row's number and byte length. */
interface OpenPiece {
  runs: Buffer[];
  numbers: number[];
  byteLengths: number[];
}

/** Cuts the bytes of a part, fed in order, into head, pieces of rows and tail. */
class RowCutter {
  prefix = '';
  head: string | null = null;
  tail: string | null = null;
  ordered = true;
  readonly #closing: Promise<RowPiece>[] = [];
  /** How many of #closing have been waited for. */
  #closed = 0;
  #tailBytes: Buffer[] = [];
  #carry: Buffer = EMPTY;
  #previous = 0;
  #piece: OpenPiece = { runs: [], numbers: [], byteLengths: [] };
  /** The run the last row extended: its buffer and where it starts and ends there. */
  #run: { buffer: Buffer; start: number; end: number } | null = null;
  #rowTag = EMPTY;
  #rowEnd = EMPTY;
  #close = EMPTY;

  /** Takes the next bytes; answers a promise to wait for when enough compression is under way. */
  feed(chunk: Buffer): Promise<unknown> | undefined {
    if (this.#carry.length === 0) this.#take(chunk);
    else {
      // Among the rows, only the row cut in two is joined to what ends it: copying every chunk whole to put a
      // few hundred bytes before it cost a million-row sheet a quarter of a second of the service's thread.
      const joinUpTo = this.head !== null && this.tail === null ? afterFirst(chunk, this.#rowEnd) : -1;
      const joined = joinUpTo > 0 ? chunk.subarray(0, joinUpTo) : chunk;
      this.#take(Buffer.concat([this.#carry, joined]));
      const rest = chunk.subarray(joined.length);
      // What the joined bytes left over goes before the rest (only a cut row, where rows are not back to back).
      if (rest.length > 0) this.#take(this.#carry.length > 0 ? Buffer.concat([this.#carry, rest]) : rest);
    }
    // A chunk cuts several pieces: wait until at most IN_FLIGHT are left, not for one only, or the pieces
    // waiting for a thread (their bytes not yet compressed) pile up when the threads fall behind.
    if (this.#closing.length - this.#closed <= IN_FLIGHT) return undefined;
    this.#closed = this.#closing.length - IN_FLIGHT;
    return this.#closing[this.#closed - 1];
  }

  /** Cuts `bytes`, which follow every byte taken before (the carry included, now given up). */
  #take(bytes: Buffer): void {
    this.#carry = EMPTY;
    if (this.tail !== null) {
      this.#tailBytes.push(bytes);
      return;
    }
    const body = this.head === null ? this.#cutHead(bytes) : 0;
    if (body >= 0 && this.tail === null) this.#cutRows(bytes, body);
  }

  async end(): Promise<RowPiece[] | null> {
    this.#endPiece();
    const pieces = await Promise.all(this.#closing);
    if (this.head === null || this.tail === null || !this.ordered) return null;
    this.tail += Buffer.concat(this.#tailBytes).toString('utf8');
    return pieces;
  }

  /** Where the rows start, once the head is complete (-1 until then: the bytes are kept for the next chunk). */
  #cutHead(bytes: Buffer): number {
    // A latin1 reading keeps every byte's offset, and the tag's characters are ASCII.
    const open = SHEET_DATA.exec(bytes.toString('latin1'));
    if (!open) {
      this.#carry = bytes;
      return -1;
    }
    this.prefix = open[1] ?? '';
    this.#rowTag = Buffer.from(`<${this.prefix}row`);
    this.#rowEnd = Buffer.from(`</${this.prefix}row>`);
    this.#close = Buffer.from(`</${this.prefix}sheetData>`);
    const from = bytes.subarray(0, 3).equals(BOM) ? 3 : 0;
    const bodyStart = open.index + open[0].length;
    if (open[2] === '/') {
      this.head = `${bytes.toString('utf8', from, open.index)}<${this.prefix}sheetData>`;
      this.tail = `</${this.prefix}sheetData>`;
      this.#tailBytes.push(bytes.subarray(bodyStart));
      return bytes.length;
    }
    this.head = bytes.toString('utf8', from, bodyStart);
    return bodyStart;
  }

  /**
   * The complete rows of `bytes` from `at` (what the text constructor's row pattern matches). One search of
   * the bytes per row, for its end: its start tag is read here, and the next row most often starts where it
   * ends (rows are written back to back).
   */
  #cutRows(bytes: Buffer, at: number): void {
    const tag = this.#rowTag;
    // Where the rows end, if these bytes hold it: looked for once (each row looking again would be quadratic),
    // and only when a row does not start right where the last one ended (no `</sheetData>` can come between).
    let end: number | undefined;
    for (;;) {
      const adjacent = startsWith(bytes, at, tag);
      const start = adjacent ? at : bytes.indexOf(tag, at);
      if (!adjacent) end ??= bytes.indexOf(this.#close, at);
      if (end !== undefined && end >= 0 && (start < 0 || end < start)) {
        this.#endRun();
        this.tail = '';
        this.#tailBytes.push(bytes.subarray(end));
        return;
      }
      if (start < 0) break;
      const after = bytes[start + tag.length];
      if (after === undefined) break; // the tag's name may go on in the next chunk
      if (!endsName(after)) {
        at = start + tag.length;
        continue;
      }
      let tagEnd = start + tag.length;
      while (tagEnd < bytes.length && bytes[tagEnd] !== GT) tagEnd++;
      if (tagEnd === bytes.length) break;
      const selfClosing = bytes[tagEnd - 1] === SLASH;
      const rowClose = selfClosing ? tagEnd + 1 : endTagAt(bytes, tagEnd, this.#rowEnd);
      if (rowClose < 0) break;
      const stop = selfClosing ? rowClose : rowClose + this.#rowEnd.length;
      this.#row(bytes, start, tagEnd + 1, stop);
      at = stop;
    }
    this.#endRun();
    // Kept for the next chunk: a copy, so the chunk's other bytes can go.
    this.#carry = Buffer.from(bytes.subarray(at));
  }

  #row(bytes: Buffer, start: number, tagEnd: number, stop: number): void {
    const r = rowNumberOf(bytes, start, start + this.#rowTag.length, tagEnd);
    const number = Number.isInteger(r) && r > 0 ? r : this.#previous + 1;
    if (number <= this.#previous) this.ordered = false;
    this.#previous = number;
    const run = this.#run;
    if (run?.buffer === bytes && run.end === start) run.end = stop;
    else {
      this.#endRun();
      this.#run = { buffer: bytes, start, end: stop };
    }
    this.#piece.numbers.push(number);
    this.#piece.byteLengths.push(stop - start);
    if (this.#piece.numbers.length >= ROWS_PER_PIECE) this.#endPiece();
  }

  #endRun(): void {
    const run = this.#run;
    if (run) this.#piece.runs.push(run.buffer.subarray(run.start, run.end));
    this.#run = null;
  }

  #endPiece(): void {
    this.#endRun();
    const { runs, numbers, byteLengths } = this.#piece;
    this.#piece = { runs: [], numbers: [], byteLengths: [] };
    if (numbers.length === 0) return;
    const bytes = runs.length === 1 ? (runs[0] as Buffer) : Buffer.concat(runs);
    const formulas = formulaFactsOfBytes(bytes);
    const lengths = utf16Lengths(bytes, byteLengths);
    this.#closing.push(
      deflatePieceOffThread(bytes).then((deflated: DeflatedPiece) =>
        RowPiece.closed(deflated, Int32Array.from(numbers), lengths, formulas),
      ),
    );
  }
}

const LOWER_W = 0x77;
/** Pieces handed to the piece threads and not compressed yet, at most (about 170 KB each). */
const IN_FLIGHT = 4;

/**
 * Where `</row>` (`end`, with the sheet's prefix) first stands in `bytes` from `from`, or -1. Found from its
 * `w`, which the bytes of a row hold few of, where a search for the whole tag would stop at every `<`: this is
 * the one search per row of a million-row sheet.
 */
function endTagAt(bytes: Buffer, from: number, end: Buffer): number {
  const w = end.length - 2;
  for (let at = bytes.indexOf(LOWER_W, from + w); at >= 0; at = bytes.indexOf(LOWER_W, at + 1))
    if (bytes[at + 1] === GT && startsWith(bytes, at - w, end)) return at - w;
  return -1;
}

/** Where the first `tag` in `bytes` ends, or -1. */
function afterFirst(bytes: Buffer, tag: Buffer): number {
  const at = bytes.indexOf(tag);
  return at < 0 ? -1 : at + tag.length;
}

/** Whether `bytes` holds `tag` at `at`. */
function startsWith(bytes: Buffer, at: number, tag: Buffer): boolean {
  if (at + tag.length > bytes.length) return false;
  for (let i = 0; i < tag.length; i++) if (bytes[at + i] !== tag[i]) return false;
  return true;
}

/** The `r` of the row's start tag at [start, tagEnd) (its name ends at `from`): its digits in the usual form. */
function rowNumberOf(bytes: Buffer, start: number, from: number, tagEnd: number): number {
  if (
    bytes[from] === 0x20 &&
    bytes[from + 1] === 0x72 &&
    bytes[from + 2] === 0x3d &&
    bytes[from + 3] === QUOTE
  ) {
    let number = 0;
    let p = from + 4;
    for (let c = bytes[p] as number; c >= 0x30 && c <= 0x39; c = bytes[++p] as number)
      number = number * 10 + c - 0x30;
    if (p > from + 4 && bytes[p] === QUOTE) return number;
  }
  return Number(getAttr(bytes.toString('utf8', start, tagEnd), 'r'));
}

/** Each row's length in UTF-16 units (what a row's text measures once decoded): its byte length in ASCII. */
function utf16Lengths(bytes: Buffer, byteLengths: number[]): Int32Array {
  const lengths = Int32Array.from(byteLengths);
  if (isAscii(bytes)) return lengths;
  for (let i = 0, at = 0; i < lengths.length; i++) {
    const size = byteLengths[i] as number;
    lengths[i] = bytes.toString('utf8', at, at + size).length;
    at += size;
  }
  return lengths;
}

/**
 * The sheet part `data` (its compressed bytes, `method` 8, or stored, 0), or null when the text constructor
 * must. It inflates to at most `size` bytes, what the directory says (and the parse thread checked).
 */
export async function loadSheetXml(
  data: Uint8Array,
  method: number,
  size: number,
  /** How much is inflated at a time (tests cut at every byte boundary with small ones). */
  chunkBytes = INFLATE_CHUNK_BYTES,
): Promise<SheetXml | null> {
  const cutter = new RowCutter();
  const pace = pacer();
  try {
    for await (const chunk of inflatedChunks(data, method, size, chunkBytes)) {
      await cutter.feed(chunk);
      await pace();
    }
  } catch (e) {
    if (e instanceof PartTooLarge) return null; // more than the directory says: the text constructor's read refuses it
    throw e;
  }
  const pieces = await cutter.end();
  if (!pieces) return null;
  return new SheetXml({
    prefix: cutter.prefix,
    head: cutter.head as string,
    tail: cutter.tail as string,
    pieces,
  });
}
