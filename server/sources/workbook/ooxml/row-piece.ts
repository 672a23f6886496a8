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
import { movePieceOffThread } from './piece-threads.ts';

export interface RowSlot {
  number: number;
  /** The row's XML: the file's text until edited. */
  xml: string;
}

/** A row's text rewritten in place: its new form, or null when the row goes. */
export type RowRewrite = (slot: RowSlot) => RowSlot | null;

/** What a move does to a row's number: the new one, or null for a row that goes. */
export type RowNumbering = (number: number) => number | null;

/**
 * Whether some cell of the text may hold a formula (`<f>`, any prefix; a false yes costs a rewrite, never a
 * wrong file). A plain search first: the pattern alone, run over every piece of a large sheet, cost seconds.
 */
export function mayHoldFormula(text: string): boolean {
  return text.includes('<f') || (text.includes(':f') && PREFIXED_FORMULA.test(text));
}

const PREFIXED_FORMULA = /<[\w.-]+:f[\s>/]/;

/**
 * `mayHoldFormula` of UTF-8 bytes, the same answer (the searched characters are ASCII). Found from the `f`s,
 * which a sheet of values has few of, where a search for `<f` would stop at every tag.
 */
export function mayHoldFormulaBytes(bytes: Buffer): boolean {
  let prefixed = false;
  for (let at = bytes.indexOf(LOWER_F); at >= 0; at = bytes.indexOf(LOWER_F, at + 1)) {
    const before = bytes[at - 1];
    if (before === LT) return true;
    if (before === COLON) prefixed = true;
  }
  return prefixed && PREFIXED_FORMULA.test(bytes.toString('latin1'));
}

const LOWER_F = 0x66;
const LT = 0x3c;
const COLON = 0x3a;

interface Closed {
  deflated: DeflatedPiece;
  /** The numbers of the rows the deflated text holds, and each row's length in UTF-16 units there. */
  numbers: Int32Array;
  lengths: Int32Array;
  /** Rewrites not yet applied to the text, in order, and the rows' numbers once they are. */
  pending: RowRewrite[];
  current: Int32Array;
  /** The text may hold a formula (kept true once true until the piece is opened again). */
  formulas: boolean;
  /**
   * While every pending rewrite only moved all the rows alike (a delete above the piece) and the text holds no
   * formula: how far down their numbers moved in all. Such a piece is renumbered in its bytes on a piece thread
   * (piece-threads.ts), never taken apart. Null once some rewrite did more.
   */
  shift: number | null;
}

export class RowPiece {
  #slots: RowSlot[] | null;
  #closed: Closed | null = null;
  /** The deflated rows and the row texts they were made of, while those are still the slots' texts. */
  #deflated: { piece: DeflatedPiece; texts: string[] } | null = null;

  constructor(slots: RowSlot[]) {
    this.#slots = slots;
  }

  /** A piece made closed: its rows' text deflated, each row's number and length in UTF-16 units there. */
  static closed(
    deflated: DeflatedPiece,
    numbers: Int32Array,
    lengths: Int32Array,
    formulas: boolean,
  ): RowPiece {
    const piece = new RowPiece([]);
    piece.#slots = null;
    piece.#closed = { deflated, numbers, lengths, pending: [], current: numbers, formulas, shift: 0 };
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

  /** Open, or closed with text that may hold a formula. */
  get mayHoldFormulas(): boolean {
    return this.#closed === null || this.#closed.formulas;
  }

  /** Closed with rewrites still to apply: closing it again must rewrite and recompress it. */
  get moved(): boolean {
    return (this.#closed?.pending.length ?? 0) > 0;
  }

  /** The rows, in sheet order, inflated first when the piece is closed. Edits go through these objects. */
  slots(): RowSlot[] {
    if (this.#slots) return this.#slots;
    const { deflated, numbers, lengths, pending } = this.#closed as Closed;
    const text = inflatePiece(deflated);
    let slots = new Array<RowSlot>(numbers.length);
    const texts = new Array<string>(numbers.length);
    for (let i = 0, at = 0; i < numbers.length; i++) {
      const xml = text.slice(at, at + (lengths[i] as number));
      at += lengths[i] as number;
      slots[i] = { number: numbers[i] as number, xml };
      texts[i] = xml;
    }
    for (const rewrite of pending) slots = rewriteAll(slots, rewrite);
    this.#slots = slots;
    this.#deflated = pending.length === 0 ? { piece: deflated, texts } : null;
    this.#closed = null;
    return slots;
  }

  /**
   * Every row through `rewrite`, which may change only what `numbering` says of its number (and the
   * formulas in its text). An open piece is rewritten now; a closed one takes the new numbers now and the
   * rewrite when next opened, and is left alone when neither its numbers nor (having none) its formulas move.
   */
  move(rewrite: RowRewrite, numbering: RowNumbering): void {
    if (this.#slots) {
      this.#slots = rewriteAll(this.#slots, rewrite);
      return;
    }
    const closed = this.#closed as Closed;
    const next = movedNumbers(closed.current, numbering);
    if (next === closed.current && !closed.formulas) return;
    closed.pending.push(rewrite);
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
    if (this.#closed && !this.moved) return this.#closed.deflated;
    const shift = this.#closed?.shift;
    if (this.#closed && shift) {
      const closed = this.#closed;
      const moved = await movePieceOffThread(closed.deflated, shift, closed.numbers.length);
      // Nothing opens or moves the piece meanwhile (one write turn at a time); checked all the same.
      if (moved && this.#closed === closed && closed.pending.length > 0) {
        const lengths = closed.lengths.map((length, i) => length + (moved.growth[i] as number));
        const { current, formulas } = closed;
        this.#closed = {
          deflated: moved.piece,
          numbers: current,
          lengths,
          pending: [],
          current,
          formulas,
          shift: 0,
        };
        return moved.piece;
      }
    }
    // A move renumbers rows and shifts their formulas, never makes one: rows without any keep having none.
    const formulaFree = this.#closed !== null && !this.#closed.formulas;
    const slots = this.slots();
    const known = this.#deflated;
    if (known && sameTexts(known.texts, slots)) return this.#closeWith(known.piece, null);
    const text = slots.map((slot) => slot.xml).join('');
    // Nothing edits the piece meanwhile: a document is written by one write turn at a time.
    return this.#closeWith(await deflatePieceAsync(text, false), text, formulaFree);
  }

  #closeWith(deflated: DeflatedPiece, text: string | null, formulaFree = false): DeflatedPiece {
    const slots = this.#slots as RowSlot[];
    const numbers = new Int32Array(slots.length);
    const lengths = new Int32Array(slots.length);
    let formulas = false;
    slots.forEach((slot, i) => {
      numbers[i] = slot.number;
      lengths[i] = slot.xml.length;
      if (text === null) formulas ||= mayHoldFormula(slot.xml);
    });
    if (text !== null) formulas = !formulaFree && mayHoldFormula(text);
    this.#closed = { deflated, numbers, lengths, pending: [], current: numbers, formulas, shift: 0 };
    this.#slots = null;
    this.#deflated = null;
    return deflated;
  }
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

function rewriteAll(slots: RowSlot[], rewrite: RowRewrite): RowSlot[] {
  let kept = 0;
  for (const slot of slots) {
    const next = rewrite(slot);
    if (next) slots[kept++] = next;
  }
  slots.length = kept;
  return slots;
}

function sameTexts(texts: readonly string[], slots: readonly RowSlot[]): boolean {
  if (texts.length !== slots.length) return false;
  for (let i = 0; i < texts.length; i++) if (texts[i] !== (slots[i] as RowSlot).xml) return false;
  return true;
}
