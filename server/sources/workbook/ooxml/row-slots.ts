/**
 * Rows of a worksheet part as the editors hold them (a number and the row's XML), and what a move does to them:
 * shared by the pieces on the service's thread (row-piece.ts) and the piece threads that rewrite pieces there
 * (piece-rewrite.ts).
 */
import type { FormulaResult } from '../formulas/evaluator.ts';

export interface RowSlot {
  number: number;
  /** The row's XML: the file's text until edited. */
  xml: string;
}

/** A row's text rewritten in place: its new form, or null when the row goes. */
export type RowRewrite = (slot: RowSlot) => RowSlot | null;

/** What a move does to a row's number: the new one, or null for a row that goes. */
export type RowNumbering = (number: number) => number | null;

/** Rows deleted from a tab, as data a piece thread can act on (row-delete-rewrite.ts makes the rewrite). */
export interface RowsDeleted {
  /** 1-based sheet rows, ascending, each once. */
  deleted: readonly number[];
  /** The tab's name, for formulas that name their own tab. */
  sheetName: string;
  /** The sheet's element prefix (`x:`), or ''. */
  prefix: string;
}

/** A formula's result to store in its cell, where the cell has none (uncomputed-results.ts). */
export interface RowResult {
  row: number;
  column: number;
  result: FormulaResult;
}

/** A rewrite of rows as data, which a piece thread can make (piece-rewrite.ts). */
export type PortableRewrite =
  | ({ kind: 'delete' } & RowsDeleted)
  | { kind: 'results'; prefix: string; results: RowResult[] };

/** A change to every row of a sheet: a delete's renumbering and formula shift, results stored in formulas. */
export interface RowMove {
  rewrite: RowRewrite;
  numbering: RowNumbering;
  /**
   * Rows above this one keep their numbers, and a formula reading only rows above it keeps its text: a piece
   * above it whose formulas read no further (formula-reach.ts) is left as it is. 0 when nothing is known.
   */
  unchangedAbove: number;
  /**
   * The same change to the rows `first` to `last` as data, for a piece thread to make: null when it changes
   * nothing there. Absent when only `rewrite` can make it.
   */
  portable?: (first: number, last: number) => PortableRewrite | null;
}

/** The rows of a piece's text, cut by each row's length in UTF-16 units. */
export function slotsOfText(text: string, numbers: Int32Array, lengths: Int32Array): RowSlot[] {
  const slots = new Array<RowSlot>(numbers.length);
  for (let i = 0, at = 0; i < numbers.length; i++) {
    const end = at + (lengths[i] as number);
    slots[i] = { number: numbers[i] as number, xml: text.slice(at, end) };
    at = end;
  }
  return slots;
}

/** Every slot through `rewrite`, in place: the rows it keeps, in order. */
export function rewriteAll(slots: RowSlot[], rewrite: RowRewrite): RowSlot[] {
  let kept = 0;
  for (const slot of slots) {
    const next = rewrite(slot);
    if (next) slots[kept++] = next;
  }
  slots.length = kept;
  return slots;
}
