/**
 * A closed piece of rows (row-piece.ts) rewritten for the deletes made since it was closed: inflated, each row
 * through the delete's rewrite (row-delete-rewrite.ts: the same rows and formulas the service's thread would
 * make), compressed again. Pure, so it runs on the piece threads (piece-threads.ts): a delete on a tab with a
 * formula in every row shifts every formula below it, and the service's thread only hands the bytes over.
 */
import { type DeflatedPiece, deflatePieceBytesOwned, inflatePiece } from './chunked-deflate.ts';
import { type FormulaFacts, formulaFacts } from './formula-reach.ts';
import { deleteRowRewrite } from './row-delete-rewrite.ts';
import { type RowsDeleted, rewriteAll, slotsOfText } from './row-slots.ts';

export interface RewrittenPiece {
  piece: DeflatedPiece;
  /** The rows it holds now: each one's number, and its length in UTF-16 units in the new text. */
  numbers: Int32Array;
  lengths: Int32Array;
  facts: FormulaFacts;
}

/** The piece whose text holds rows `numbers` of `lengths` after `deletes`, in order. */
export function rewritePiece(
  piece: DeflatedPiece,
  numbers: Int32Array,
  lengths: Int32Array,
  deletes: readonly RowsDeleted[],
): RewrittenPiece {
  let slots = slotsOfText(inflatePiece(piece), numbers, lengths);
  for (const deleted of deletes) slots = rewriteAll(slots, deleteRowRewrite(deleted));
  const text = slots.map((slot) => slot.xml).join('');
  return {
    piece: deflatePieceBytesOwned(Buffer.from(text, 'utf8'), false),
    numbers: Int32Array.from(slots, (slot) => slot.number),
    lengths: Int32Array.from(slots, (slot) => slot.xml.length),
    facts: formulaFacts(text),
  };
}
