/**
 * Where rows end up after some rows of a sheet are deleted (everything below moves up). Used to shift
 * cell addresses, merged ranges and formula references the way a spreadsheet program does.
 */
export class RowMap {
  readonly #deleted: number[];
  readonly #deletedSet: Set<number>;

  /** `deleted`: 1-based sheet row numbers. */
  constructor(deleted: readonly number[]) {
    this.#deleted = [...new Set(deleted)].sort((a, b) => a - b);
    this.#deletedSet = new Set(this.#deleted);
  }

  /** The first deleted row (Infinity when none): rows above it keep their numbers. */
  get first(): number {
    return this.#deleted[0] ?? Number.POSITIVE_INFINITY;
  }

  /** The deleted rows, ascending, each once. */
  get deleted(): readonly number[] {
    return this.#deleted;
  }

  /** Number of deleted rows strictly above `row` (binary search: deletes on big sheets stay cheap). */
  #deletedBefore(row: number): number {
    let lo = 0;
    let hi = this.#deleted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#deleted[mid] as number) < row) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** New number of `row`, or null when the row itself was deleted. */
  row(row: number): number | null {
    if (this.#deletedSet.has(row)) return null;
    return row - this.#deletedBefore(row);
  }

  /** New bounds of the row span `top..bottom`, or null when every row of it was deleted. */
  span(top: number, bottom: number): [number, number] | null {
    const newTop = top - this.#deletedBefore(top);
    const newBottom = bottom - this.#deletedBefore(bottom + 1);
    return newTop > newBottom ? null : [newTop, newBottom];
  }
}
