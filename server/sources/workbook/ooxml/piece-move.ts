/**
 * A closed piece of rows (row-piece.ts) moved by a delete, without taking it apart: inflated, its row numbers
 * lowered in its bytes (row-number-shift.ts), compressed again. Pure, so it runs on the piece threads
 * (piece-threads.ts) and the service's thread only hands pieces over.
 */
import { freeBuffersUnder } from '../../../lib/free-buffer.ts';
import { type DeflatedPiece, deflatePieceBytesOwned, inflatePieceBytes } from './chunked-deflate.ts';
import { shiftRowNumbersInPlace, shiftRowNumbersResized } from './row-number-shift.ts';

export interface MovedPiece {
  piece: DeflatedPiece;
  /** Per row, how many UTF-16 units its text gained (lost, negative) with its new number. */
  growth: Int32Array;
}

/** The piece with its `rows` rows numbered `shift` lower, or null when its text is not in the handled form. */
export function movePiece(piece: DeflatedPiece, shift: number, rows: number): MovedPiece | null {
  // The inflated bytes are this move's own: renumbered where they are, not copied (a delete in the middle of a
  // million rows moves 170 MB of them), and given back once compressed (this runs on a piece thread, whose
  // collector seldom runs: piece-thread.ts).
  const bytes = inflatePieceBytes(piece);
  const inPlace = shiftRowNumbersInPlace(bytes, shift, rows);
  if (inPlace !== 'width changed') {
    const moved =
      inPlace === 'done'
        ? { piece: deflatePieceBytesOwned(bytes, false), growth: new Int32Array(rows) }
        : null;
    freeBuffersUnder([bytes]);
    return moved;
  }
  // A number changed width: the pass above wrote over part of the bytes, so they are inflated again.
  freeBuffersUnder([bytes]);
  const again = inflatePieceBytes(piece);
  const shifted = shiftRowNumbersResized(again, shift, rows);
  freeBuffersUnder([again]);
  return shifted && { piece: deflatePieceBytesOwned(shifted.text, false), growth: shifted.growth };
}
