/**
 * A closed piece of rows (row-piece.ts) rewritten for the changes made since it was closed (a delete's, results
 * stored in formulas): inflated, each row through the same rewrite the service's thread makes of an open piece,
 * compressed again. Pure, so it runs on the piece threads (piece-threads.ts): a delete on a tab with a formula in
 * every row shifts every formula below it, and the service's thread only hands the bytes over.
 */
import { resultsRowRewrite } from './cached-result.ts';
import { type DeflatedPiece, deflatePieceBytesOwned, inflatePiece } from './chunked-deflate.ts';
import { type FormulaFacts, formulaFacts } from './formula-reach.ts';
import { deleteRowRewrite } from './row-delete-rewrite.ts';
import { type PortableRewrite, type RowRewrite, rewriteAll, slotsOfText } from './row-slots.ts';

export interface RewrittenPiece {
  piece: DeflatedPiece;
  /** The rows it holds now: each one's number, and its length in UTF-16 units in the new text. */
  numbers: Int32Array;
  lengths: Int32Array;
  facts: FormulaFacts;
}

/** The piece whose text holds rows `numbers` of `lengths` after `rewrites`, in order. */
export function rewritePiece(
  piece: DeflatedPiece,
  numbers: Int32Array,
  lengths: Int32Array,
  rewrites: readonly PortableRewrite[],
): RewrittenPiece {
  const before = inflatePiece(piece);
  let slots = slotsOfText(before, numbers, lengths);
  for (const rewrite of rewrites) slots = rewriteAll(slots, rowRewrite(rewrite));
  const text = slots.map((slot) => slot.xml).join('');
  return {
    // A rewrite that changed nothing (every formula already held its result) keeps the piece's bytes.
    piece: text === before ? piece : deflatePieceBytesOwned(Buffer.from(text, 'utf8'), false),
    numbers: Int32Array.from(slots, (slot) => slot.number),
    lengths: Int32Array.from(slots, (slot) => slot.xml.length),
    facts: formulaFacts(text),
  };
}

function rowRewrite(rewrite: PortableRewrite): RowRewrite {
  return rewrite.kind === 'delete'
    ? deleteRowRewrite(rewrite)
    : resultsRowRewrite(rewrite.prefix, rewrite.results);
}
