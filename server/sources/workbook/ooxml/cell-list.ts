/**
 * The cells a tab builder (tab-builder.ts) has scanned so far, as growable typed arrays in whatever order the
 * file lists them: a row, a column, a kind, a value and a format code per cell, nothing allocated per cell.
 */
export class CellList {
  rows: Uint32Array;
  columns: Uint16Array;
  kinds: Uint8Array;
  values: Float64Array;
  codes: Uint16Array;
  length = 0;
  /** The rows and columns the cells pushed so far span (bottom and right 0 while there are none): a tab's bounds
   * without a pass over its cells. */
  top = Number.POSITIVE_INFINITY;
  bottom = 0;
  right = 0;

  constructor(capacity: number) {
    const size = Math.max(1024, capacity);
    this.rows = new Uint32Array(size);
    this.columns = new Uint16Array(size);
    this.kinds = new Uint8Array(size);
    this.values = new Float64Array(size);
    this.codes = new Uint16Array(size);
  }

  push(row: number, column: number, kind: number, value: number, code: number): void {
    if (this.length === this.rows.length) this.#grow();
    const i = this.length++;
    if (row < this.top) this.top = row;
    if (row > this.bottom) this.bottom = row;
    if (column > this.right) this.right = column;
    this.rows[i] = row;
    this.columns[i] = column;
    this.kinds[i] = kind;
    this.values[i] = value;
    this.codes[i] = code;
  }

  #grow(): void {
    const size = this.rows.length * 2;
    const grown = <T extends Uint32Array | Uint16Array | Uint8Array | Float64Array>(
      a: T,
      make: (n: number) => T,
    ) => {
      const next = make(size);
      next.set(a);
      return next;
    };
    this.rows = grown(this.rows, (n) => new Uint32Array(n));
    this.columns = grown(this.columns, (n) => new Uint16Array(n));
    this.kinds = grown(this.kinds, (n) => new Uint8Array(n));
    this.values = grown(this.values, (n) => new Float64Array(n));
    this.codes = grown(this.codes, (n) => new Uint16Array(n));
  }
}
