/**
 * How many cells one formula may read and make. A range of up to 65,536 cells is read whole, and an operator
 * pairs a column with a row cell by cell, so `SUMPRODUCT(A2:A65536*C1:XFD1)` in a file of 580 KB made a billion
 * cells: the read took 20 s and 2.4 GB and was then refused as too large for memory, and a write computing it
 * would have held the service's thread as long. Excel itself stops such a formula with "ran out of resources"
 * and leaves it uncomputed; so does this: a formula that would read or make more than its budget is not computed
 * (its cell reads as it would for a function the evaluator lacks).
 *
 * The budget is counted as what the arrays cost in memory: a cell about 8 bytes, and each row of an array its
 * own array of about 64 bytes, so a column of a million cells costs as much as 8,000,000 cells of one row. The
 * default, 2^26, is about 512 MB made in all by one formula: `SUMPRODUCT((A:A="x")*(B:B>5)*C:C)` over a million
 * rows (three ranges read, four arrays made) fits; every formula within it is computed as before.
 *
 * One budget at a time: the evaluator is synchronous, and formulas a formula computes within itself spend from
 * the one that started the computation (so depth cannot multiply it).
 */

/** About 512 MB of arrays, in units of 8 bytes. */
export const DEFAULT_CELL_BUDGET = 2 ** 26;

/** What a row of an array costs beside its cells: its own array object, about 64 bytes. */
const ROW_COST = 8;

/** Thrown where a formula's budget runs out: not a formula error, so no function can take it as a value. */
export class BudgetSpent extends Error {
  constructor() {
    super("The formula needs more cells than it may read and make (Excel's 'ran out of resources').");
  }
}

let running = false;
let left = Number.POSITIVE_INFINITY;
let spent = false;

/** Counts an array of `rows` by `columns` about to be read or made; throws BudgetSpent once over budget. */
export function spendCells(rows: number, columns: number): void {
  left -= rows * (columns + ROW_COST);
  if (left < 0) {
    spent = true;
    throw new BudgetSpent();
  }
}

/** Counts an array already made (a library function's answer); the same as `spendCells` for its size. */
export function spendOn(value: unknown): void {
  if (Array.isArray(value)) spendCells(value.length, (value[0] as unknown[] | undefined)?.length ?? 1);
}

/**
 * Runs one formula's computation with a budget of `cells`, and says whether it ran out (whatever the formula
 * answered then: a function may have taken a failed argument as a value). Within a computation already under way,
 * `compute` spends from that one's budget.
 */
export function withCellBudget<T>(cells: number, compute: () => T): { value: T; spent: boolean } {
  if (running) return { value: compute(), spent };
  running = true;
  left = cells;
  spent = false;
  try {
    return { value: compute(), spent };
  } finally {
    running = false;
    left = Number.POSITIVE_INFINITY;
    spent = false;
  }
}

/** Whether the computation under way has run out of its budget (nothing it answers from then on is kept). */
export function budgetSpent(): boolean {
  return spent;
}
