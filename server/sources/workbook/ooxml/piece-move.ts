/**
 * A closed piece of rows (row-piece.ts) moved by a delete, without taking it apart: inflated, its row numbers
 * lowered in its bytes (row-number-shift.ts), compressed again. Pure, so it runs on the piece threads
 * (piece-threads.ts) and the service's thread only hands pieces over.
 */
import { type DeflatedPiece, deflatePieceBytes, inflatePieceBytes } from './chunked-deflate.ts';
import { shiftRowNumbers } from './row-number-shift.ts';

export interface MovedPiece {
  piece: DeflatedPiece;
  /** Per row, how many UTF-16 units its text gained (lost, negative) with its new number. */
  growth: Int32Array;
}

/** The piece with its `rows` rows numbered `shift` lower, or null when its text is not in the handled form. */
export function movePiece(piece: DeflatedPiece, shift: number, rows: number): MovedPiece | null {
  const shifted = shiftRowNumbers(inflatePieceBytes(piece), shift, rows);
  if (!shifted) return null;
  return { piece: deflatePieceBytes(shifted.text, false), growth: shifted.growth };
}
