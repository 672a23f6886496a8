/**
 * A run of consecutive rows of a worksheet part, held either open (each row's XML, to read or edit) or
 * closed (only its deflated bytes, with each row's number and length). A document kept for the next write
 * holds its sheets closed, so a large sheet costs about its compressed size, and an edit inflates only the
 * pieces holding the rows it names.
 *
 * A closed piece can also be moved without being opened (`move`): a delete renumbers every row below it, and
 * on a large sheet doing that at once would hold the service for seconds. The piece takes the rows' new
 * numbers at once (so lookups stay right) and keeps the rewrite of their text for when it is next opened or
 * closed, which `SheetXml.compress` does a piece at a time between other work.
 */
import { type DeflatedPiece, deflatePieceAsync, inflatePiece } from './chunked-deflate.ts';
import { type FormulaFacts, formulaFacts, NO_FORMULAS } from './formula-reach.ts';
import { movePieceOffThread, rewritePieceOffThread } from './piece-threads.ts';
import {
  type PortableRewrite,
  type RowMove,
  type RowNumbering,
  type RowRewrite,
  type RowSlot,
  rewriteAll,
  slotsOfText,
} from './row-slots.ts';

interface Closed extends FormulaFacts {
  deflated: DeflatedPiece;
  /** The numbers of the rows the deflated text holds, and each row's length in UTF-16 units there. */
  numbers: Int32Array;
  lengths: Int32Array;
  /** Moves not yet applied to the text, in order, and the rows' numbers once they are. */
  pending: Pending[];
  current: Int32Array;
  /**
   * While every pending rewrite only moved all the rows alike (a delete above the piece) and the text holds no
   * formula: how far down their numbers moved in all. Such a piece is renumbered in its bytes on a piece thread
   * (piece-threads.ts), never taken apart. Null once some rewrite did more.
   */
  shift: number | null;
}

/** A move kept for a closed piece: its rewrite, and the same as data for a piece thread when it has one. */
interface Pending {
  rewrite: RowRewrite;
  portable: PortableRewrite | undefined;
}

export class RowPiece {
  #slots: RowSlot[] | null;
  #closed: Closed | null = null;
  /** The deflated rows and the row texts they were made of, while those are still the slots' texts. */
  #deflated: { piece: DeflatedPiece; texts: string[] } | null = null;

  constructor(slots: RowSlot[]) {
    this.#slots = slots;
  }

  /**
   * A piece made closed: its rows' text deflated, each row's number and length in UTF-16 units there, and
   * what the text says of its formulas.
   */
  static closed(
    deflated: DeflatedPiece,
    numbers: Int32Array,
    lengths: Int32Array,
    facts: FormulaFacts,
  ): RowPiece {
    const piece = new RowPiece([]);
    piece.#slots = null;
    piece.#closed = { deflated, numbers, lengths, pending: [], current: numbers, ...facts, shift: 0 };
    return piece;
  }

  get count(): number {
    return this.#slots?.length ?? this.#closed?.current.length ?? 0;
  }

  get first(): number {
    return this.#slots ? (this.#slots[0]?.number ?? 0) : (this.#closed?.current[0] ?? 0);
  }

  get last(): number {
    if (this.#slots) return this.#slots.at(-1)?.number ?? 0;
    const numbers = this.#closed?.current;
    return numbers && numbers.length > 0 ? (numbers[numbers.length - 1] as number) : 0;
  }

  /** Open, or closed with text that may hold a shared formula. */
  get mayShareFormulas(): boolean {
    return this.#closed === null || this.#closed.shared;
  }

  /**
   * The piece as it was made closed, when nothing moved or opened it since (what a kept document stores of it:
   * kept-sheets.ts); else null.
   */
  get closedAsMade(): {
    deflated: DeflatedPiece;
    numbers: Int32Array;
    lengths: Int32Array;
    facts: FormulaFacts;
  } | null {
    const closed = this.#closed;
    if (!closed || closed.pending.length > 0 || closed.current !== closed.numbers) return null;
    const { deflated, numbers, lengths, formulas, reach, shared } = closed;
    return { deflated, numbers, lengths, facts: { formulas, reach, shared } };
  }

  /** Closed with rewrites still to apply: closing it again must rewrite and recompress it. */
  get moved(): boolean {
    return (this.#closed?.pending.length ?? 0) > 0;
  }

  /** The rows, in sheet order, inflated first when the piece is closed. Edits go through these objects. */
  slots(): RowSlot[] {
    if (this.#slots) return this.#slots;
    const { deflated, numbers, lengths, pending } = this.#closed as Closed;
    let slots = slotsOfText(inflatePiece(deflated), numbers, lengths);
    const texts = slots.map((slot) => slot.xml);
    for (const move of pending) slots = rewriteAll(slots, move.rewrite);
    this.#slots = slots;
    this.#deflated = pending.length === 0 ? { piece: deflated, texts } : null;
    this.#closed = null;
    return slots;
  }

  /**
   * Every row through the move's `rewrite`, which may change only what `numbering` says of its number (and the
   * formulas in its text). An open piece is rewritten now; a closed one takes the new numbers now and the
   * rewrite when next opened, and is left alone when neither its numbers nor its formulas can change (none,
   * or none reading as far down as the move changes anything: formula-reach.ts).
   */
  move(move: RowMove): void {
    if (this.#slots) {
      this.#slots = rewriteAll(this.#slots, move.rewrite);
      return;
    }
    const closed = this.#closed as Closed;
    const next = movedNumbers(closed.current, move.numbering);
    const portable = move.portable?.(this.first, this.last);
    const keeps = !closed.formulas || closed.reach < move.unchangedAbove || portable === null;
    if (next === closed.current && keeps) return;
    closed.pending.push({ rewrite: move.rewrite, portable: portable ?? undefined });
    const by = uniformShift(closed.current, next);
    closed.shift = closed.shift !== null && by !== null && !closed.formulas ? closed.shift + by : null;
    closed.current = next;
  }

  /**
   * Keeps only the rows' deflated bytes (and each row's number and length), so the row texts can be
   * collected, and answers them: the bytes made last time when no row's text changed since, else the rows
   * compressed on the thread pool (the service answers meanwhile).
   */
  async closeAsync(): Promise<DeflatedPiece> {
    const closed = this.#closed;
    if (closed && !this.moved) return closed.deflated;
    const moved = closed && (await this.#moveOffThread(closed));
    if (moved) return moved;
    // A move renumbers rows and shifts their formulas, never makes one: rows without any keep having none.
    const formulaFree = this.#closed !== null && !this.#closed.formulas;
    const slots = this.slots();
    const known = this.#deflated;
    if (known && sameTexts(known.texts, slots)) return this.#closeWith(known.piece, null);
    const text = slots.map((slot) => slot.xml).join('');
    // Nothing edits the piece meanwhile: a document is written by one write turn at a time.
    return this.#closeWith(await deflatePieceAsync(text, false), text, formulaFree);
  }

  /**
   * A closed piece's pending moves made on a piece thread, which the service's thread only hands the bytes to:
   * rows all moved alike without formulas are renumbered in their bytes (piece-move.ts), a delete's rows
   * rewritten there as here (piece-rewrite.ts). Null when neither can be (the general way then).
   */
  async #moveOffThread(closed: Closed): Promise<DeflatedPiece | null> {
    let made: { piece: DeflatedPiece; lengths: Int32Array; facts: FormulaFacts } | null = null;
    const rewrites = closed.pending.every((move) => move.portable !== undefined)
      ? closed.pending.map((move) => move.portable as PortableRewrite)
      : null;
    if (closed.shift) {
      const moved = await movePieceOffThread(closed.deflated, closed.shift, closed.numbers.length);
      if (moved) {
        const lengths = closed.lengths.map((length, i) => length + (moved.growth[i] as number));
        made = { piece: moved.piece, lengths, facts: closed };
      }
    } else if (rewrites) {
      const rewritten = await rewritePieceOffThread(
        closed.deflated,
        closed.numbers,
        closed.lengths,
        rewrites,
      );
      if (rewritten && sameNumbers(rewritten.numbers, closed.current)) made = rewritten;
    }
    // Nothing opens or moves the piece meanwhile (one write turn at a time); checked all the same.
    if (!made || this.#closed !== closed || closed.pending.length === 0) return null;
    const { current } = closed;
    const { formulas, reach, shared } = made.facts;
    this.#closed = {
      deflated: made.piece,
      numbers: current,
      lengths: made.lengths,
      pending: [],
      current,
      formulas,
      reach,
      shared,
      shift: 0,
    };
    return made.piece;
  }

  #closeWith(deflated: DeflatedPiece, text: string | null, formulaFree = false): DeflatedPiece {
    const slots = this.#slots as RowSlot[];
    const numbers = new Int32Array(slots.length);
    const lengths = new Int32Array(slots.length);
    let facts = NO_FORMULAS;
    slots.forEach((slot, i) => {
      numbers[i] = slot.number;
      lengths[i] = slot.xml.length;
      if (text === null) facts = withRow(facts, slot.xml);
    });
    if (text !== null) facts = formulaFree ? NO_FORMULAS : formulaFacts(text);
    this.#closed = { deflated, numbers, lengths, pending: [], current: numbers, ...facts, shift: 0 };
    this.#slots = null;
    this.#deflated = null;
    return deflated;
  }
}

/** The facts of a piece's text with one more row's. */
function withRow(facts: FormulaFacts, xml: string): FormulaFacts {
  const row = formulaFacts(xml);
  if (!row.formulas) return facts;
  return {
    formulas: true,
    reach: Math.max(facts.reach, row.reach),
    shared: facts.shared || row.shared,
  };
}

function sameNumbers(a: Int32Array, b: Int32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The rows' numbers after a move (the same array when none changes). A piece whose first and last rows stay
 * the same distance apart lost no row between them: its numbers all shift alike, one typed-array pass.
 */
function movedNumbers(numbers: Int32Array, numbering: RowNumbering): Int32Array {
  if (numbers.length === 0) return numbers;
  const first = numbers[0] as number;
  const last = numbers[numbers.length - 1] as number;
  const movedFirst = numbering(first);
  const movedLast = numbering(last);
  if (movedFirst !== null && movedLast !== null && movedLast - movedFirst === last - first) {
    const shift = first - movedFirst;
    return shift === 0 ? numbers : numbers.map((number) => number - shift);
  }
  const next: number[] = [];
  let same = true;
  for (const number of numbers) {
    const moved = numbering(number);
    if (moved !== number) same = false;
    if (moved !== null) next.push(moved);
  }
  return same ? numbers : Int32Array.from(next);
}

/** How far down every number moved from `before` to `after`, when all moved alike; else null. */
function uniformShift(before: Int32Array, after: Int32Array): number | null {
  if (before.length !== after.length || before.length === 0) return null;
  const by = (before[0] as number) - (after[0] as number);
  // Numbers only ever move up by the rows deleted above them, so equal ends mean all equal.
  return by === (before[before.length - 1] as number) - (after[after.length - 1] as number) ? by : null;
}

function sameTexts(texts: readonly string[], slots: readonly RowSlot[]): boolean {
  if (texts.length !== slots.length) return false;
  for (let i = 0; i < texts.length; i++) if (texts[i] !== (slots[i] as RowSlot).xml) return false;
  return true;
}
