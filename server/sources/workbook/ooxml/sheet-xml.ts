/**
 * A worksheet part held as text and edited row by row. `<sheetData>` is cut into its rows once; edits
 * replace whole rows, and the part is written back as the untouched head, the rows and the untouched tail,
 * so rows the write did not name keep their exact bytes.
 *
 * The rows are kept in pieces of about 500 (row-piece.ts). `compress` deflates the pieces that changed and
 * closes every piece, so between writes the sheet costs about its compressed size; the next edit inflates
 * only the pieces holding the rows it names (an append: the last one).
 */

import type { Pace } from '../../../lib/pacer.ts';
import { pacer } from '../../../lib/pacer.ts';
import { type DeflatedPiece, deflatePiece, PieceJoiner, type Precompressed } from './chunked-deflate.ts';
import { RowPiece } from './row-piece.ts';
import type { RowMove, RowSlot } from './row-slots.ts';
import { getAttr } from './xml-text.ts';

export type { RowSlot } from './row-slots.ts';

/** A sheet part already cut: what precedes its rows, the rows in pieces, what follows them. */
export interface SheetParts {
  prefix: string;
  head: string;
  tail: string;
  pieces: RowPiece[];
}

/**
 * Rows per piece: an append recompresses the last piece only (about 100 KB of XML for typical rows, a
 * millisecond or two), and pieces stay big enough that compressing them apart costs little in size.
 */
export const ROWS_PER_PIECE = 500;

/** A fresh copy of a string: a slice of the whole part would keep all of the part's text alive. */
const detached = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

function intoPieces(rows: RowSlot[]): RowPiece[] {
  const pieces: RowPiece[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_PIECE)
    pieces.push(new RowPiece(rows.slice(i, i + ROWS_PER_PIECE)));
  return pieces;
}

/** Index of the first slot numbered `number` or above (`slots` in sheet order). */
function lowerBound(slots: readonly RowSlot[], number: number): number {
  let low = 0;
  let high = slots.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((slots[mid] as RowSlot).number < number) low = mid + 1;
    else high = mid;
  }
  return low;
}

export class SheetXml {
  readonly prefix: string;
  head: string;
  /** Set by every edit: serialize rewrites the part only when true. */
  changed = false;
  tail: string;
  #pieces: RowPiece[];
  #head: { text: string; piece: DeflatedPiece } | undefined;
  #tail: { text: string; piece: DeflatedPiece } | undefined;
  readonly #joiner = new PieceJoiner();

  /** From the part's text, or from its rows already cut into pieces (sheet-xml-load.ts). */
  constructor(xml: string | SheetParts) {
    if (typeof xml !== 'string') {
      this.prefix = xml.prefix;
      this.head = xml.head;
      this.tail = xml.tail;
      this.#pieces = xml.pieces;
      return;
    }
    const open = /<([A-Za-z_][\w.-]*:)?sheetData\b[^>]*?(\/?)>/.exec(xml);
    if (!open) throw new Error('the worksheet has no sheetData');
    this.prefix = open[1] ?? '';
    const bodyStart = open.index + open[0].length;
    if (open[2] === '/') {
      this.head = detached(`${xml.slice(0, open.index)}<${this.prefix}sheetData>`);
      this.tail = detached(`</${this.prefix}sheetData>${xml.slice(bodyStart)}`);
      this.#pieces = [];
      return;
    }
    const close = xml.indexOf(`</${this.prefix}sheetData>`, bodyStart);
    this.head = detached(xml.slice(0, bodyStart));
    this.tail = detached(xml.slice(close));
    const body = xml.slice(bodyStart, close);
    const rows: RowSlot[] = [];
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
      rows.push({ number, xml: m[0] });
    }
    // Rows stored out of order are put in order (the order Excel writes), so edits and appends land in place.
    if (!ordered) rows.sort((a, b) => a.number - b.number);
    this.#pieces = intoPieces(rows);
  }

  /** The rows' pieces, in sheet order (to keep them as they are: kept-sheets.ts). */
  get pieces(): readonly RowPiece[] {
    return this.#pieces;
  }

  /** The piece holding row `number` (the first such, when a file repeats a number), if any could. */
  #pieceFor(number: number): RowPiece | undefined {
    let low = 0;
    let high = this.#pieces.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.#pieces[mid] as RowPiece).last < number) low = mid + 1;
      else high = mid;
    }
    return this.#pieces[low];
  }

  row(number: number): RowSlot | undefined {
    const piece = this.#pieceFor(number);
    if (!piece || piece.first > number) return undefined;
    const slots = piece.slots();
    const slot = slots[lowerBound(slots, number)];
    return slot?.number === number ? slot : undefined;
  }

  /** The row, created empty in its place when the sheet has none with that number. */
  ensureRow(number: number): RowSlot {
    const known = this.row(number);
    if (known) return known;
    const slot = { number, xml: `<${this.prefix}row r="${number}"/>` };
    const last = this.#pieces.at(-1);
    if (!last || (number > last.last && last.count >= ROWS_PER_PIECE)) {
      this.#pieces.push(new RowPiece([slot]));
      return slot;
    }
    // The piece it falls in, or the one before the gap it falls in (the first piece for a row above all).
    const piece = this.#pieceFor(number) ?? last;
    const index = this.#pieces.indexOf(piece);
    const target = piece.first > number && index > 0 ? (this.#pieces[index - 1] as RowPiece) : piece;
    const slots = target.slots();
    slots.splice(lowerBound(slots, number), 0, slot);
    return slot;
  }

  /** Every row, in sheet order (every piece inflated: for edits that move or scan the whole sheet). */
  allRows(): RowSlot[] {
    return this.#pieces.flatMap((piece) => piece.slots());
  }

  /**
   * Every row passed through the move's `rewrite`, in order: it answers the row as it is now (renumbered, its
   * formulas edited, or the same slot), or null to remove it, as `numbering` says of its number. Numbers must
   * stay in order (a delete moves rows up, keeping order). Closed pieces are rewritten when next opened or
   * compressed (row-piece.ts `move`), so a delete near the top of a large sheet costs little until the file is
   * written, and pieces the move cannot change are left alone.
   */
  moveRows(move: RowMove): void {
    for (const piece of this.#pieces) piece.move(move);
    this.#pieces = this.#pieces.filter((piece) => piece.count > 0);
  }

  /** moveRows with reads answered between pieces (an open piece is rewritten at once: 100,000 rows, a second). */
  async moveRowsPaced(move: RowMove, pace: Pace): Promise<void> {
    for (const piece of this.#pieces) {
      piece.move(move);
      await pace();
    }
    this.#pieces = this.#pieces.filter((piece) => piece.count > 0);
  }

  /** The rows of the pieces that may hold a shared formula (every row of an open piece). */
  rowsWithSharedFormulas(): RowSlot[] {
    return this.#pieces.filter((piece) => piece.mayShareFormulas).flatMap((piece) => piece.slots());
  }

  get firstRowNumber(): number {
    return this.#pieces[0]?.first ?? 0;
  }

  get lastRowNumber(): number {
    return this.#pieces.at(-1)?.last ?? 0;
  }

  toString(): string {
    let out = this.head;
    for (const slot of this.allRows()) out += slot.xml;
    return out + this.tail;
  }

  /**
   * The part deflated, recompressing only the pieces whose text changed since the last call; then every
   * piece is closed, until an edit opens it again.
   */
  async compress(): Promise<Precompressed> {
    // The head is stored, not compressed (it is small): an append changes only its dimension's numbers, so
    // its size stays, and so does the place of every piece after it in the file (reused-bytes.ts).
    if (this.#head?.text !== this.head)
      this.#head = { text: this.head, piece: deflatePiece(this.head, false, 0) };
    if (this.#tail?.text !== this.tail)
      this.#tail = { text: this.tail, piece: deflatePiece(this.tail, true) };
    const rows = await closeAll(this.#pieces);
    return this.#joiner.join([this.#head.piece, ...rows, this.#tail.piece]);
  }
}

/**
 * Pieces being closed at once (moved on the piece threads, or compressed on the thread pool): four for each
 * piece thread, so a thread has the next piece queued while the service's thread, which hands pieces over
 * between the reads it answers, gets to it. With four in all, a delete in the middle of 100,000 rows (99 pieces
 * moved) took 136-378 ms to close its pieces, with eight 95-248 ms (median 130 ms against 200 ms); at a million
 * rows both threads are busy either way.
 */
const IN_FLIGHT = 8;

/** Every piece closed, a few at a time, in order: the service answers between them. */
async function closeAll(pieces: readonly RowPiece[]): Promise<DeflatedPiece[]> {
  const closed = new Array<Promise<DeflatedPiece>>(pieces.length);
  const pace = pacer();
  for (let i = 0; i < pieces.length; i++) {
    if (i >= IN_FLIGHT) await closed[i - IN_FLIGHT];
    await pace();
    closed[i] = (pieces[i] as RowPiece).closeAsync();
  }
  return Promise.all(closed);
}
