/**
 * A run of consecutive rows of a worksheet part, held either open (each row's XML, to read or edit) or
 * closed (only its deflated bytes, with each row's number and length). A document kept for the next write
 * holds its sheets closed, so a large sheet costs about its compressed size, and an edit inflates only the
 * pieces holding the rows it names.
 */
import { type DeflatedPiece, deflatePiece, inflatePiece } from './chunked-deflate.ts';

export interface RowSlot {
  number: number;
  /** The row's XML: the file's text until edited. */
  xml: string;
}

interface Closed {
  deflated: DeflatedPiece;
  numbers: Int32Array;
  /** Each row's XML length in UTF-16 units, to cut the inflated text back into rows. */
  lengths: Int32Array;
}

export class RowPiece {
  #slots: RowSlot[] | null;
  #closed: Closed | null = null;
  /** The deflated rows and the row texts they were made of, while those are still the slots' texts. */
  #deflated: { piece: DeflatedPiece; texts: string[] } | null = null;

  constructor(slots: RowSlot[]) {
    this.#slots = slots;
  }

  get count(): number {
    return this.#slots?.length ?? this.#closed?.numbers.length ?? 0;
  }

  get first(): number {
    return this.#slots ? (this.#slots[0]?.number ?? 0) : (this.#closed?.numbers[0] ?? 0);
  }

  get last(): number {
    if (this.#slots) return this.#slots.at(-1)?.number ?? 0;
    const numbers = this.#closed?.numbers;
    return numbers && numbers.length > 0 ? (numbers[numbers.length - 1] as number) : 0;
  }

  /** The rows, in sheet order, inflated first when the piece is closed. Edits go through these objects. */
  slots(): RowSlot[] {
    if (this.#slots) return this.#slots;
    const { deflated, numbers, lengths } = this.#closed as Closed;
    const text = inflatePiece(deflated);
    const slots = new Array<RowSlot>(numbers.length);
    const texts = new Array<string>(numbers.length);
    for (let i = 0, at = 0; i < numbers.length; i++) {
      const xml = text.slice(at, at + (lengths[i] as number));
      at += lengths[i] as number;
      slots[i] = { number: numbers[i] as number, xml };
      texts[i] = xml;
    }
    this.#slots = slots;
    this.#deflated = { piece: deflated, texts };
    this.#closed = null;
    return slots;
  }

  /**
   * Keeps only the rows' deflated bytes (and each row's number and length), so the row texts can be
   * collected, and answers them: the bytes made last time when no row's text changed since.
   */
  close(): DeflatedPiece {
    if (this.#closed) return this.#closed.deflated;
    const slots = this.#slots as RowSlot[];
    const known = this.#deflated;
    const deflated =
      known && sameTexts(known.texts, slots)
        ? known.piece
        : deflatePiece(slots.map((slot) => slot.xml).join(''), false);
    const numbers = new Int32Array(slots.length);
    const lengths = new Int32Array(slots.length);
    slots.forEach((slot, i) => {
      numbers[i] = slot.number;
      lengths[i] = slot.xml.length;
    });
    this.#closed = { deflated, numbers, lengths };
    this.#slots = null;
    this.#deflated = null;
    return deflated;
  }
}

function sameTexts(texts: readonly string[], slots: readonly RowSlot[]): boolean {
  if (texts.length !== slots.length) return false;
  for (let i = 0; i < texts.length; i++) if (texts[i] !== (slots[i] as RowSlot).xml) return false;
  return true;
}
