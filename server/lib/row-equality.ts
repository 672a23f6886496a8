/**
 * When two rows of cells are the same: the row diff's equality (diff/row-diff.ts), and a stored baseline's when
 * it is checked against what was just read (repositories/rules/baseline-restore.ts). Cells compare with `===`,
 * except that NaN equals NaN and a missing cell (undefined) equals null; a shorter row counts as padded with
 * null, so an added empty column changes no row.
 */

/** Cell equality: `===`, plus NaN equals NaN and a missing cell (undefined) equals null. */
function cellsEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a == null) return b == null;
  return Number.isNaN(a) && Number.isNaN(b);
}

/** Row equality: cell by cell, the shorter row padded with null. */
export function rowsEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a === b) return true;
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) if (!cellsEqual(a[i], b[i])) return false;
  for (let i = common; i < a.length; i++) if (a[i] != null) return false;
  for (let i = common; i < b.length; i++) if (b[i] != null) return false;
  return true;
}
