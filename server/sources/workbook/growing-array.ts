/**
 * A typed array grown as needed, by doubling, or at once to a size its filler expects (`expect`), and cut to its
 * length at the end. Each growth is fresh memory, whose page faults cost about 3 ms a megabyte on a small VM: a
 * million-row .csv's cells grown by doubling then cut were about 0.5 s of its parse.
 */
export class Growing<T extends Float64Array | Uint8Array> {
  array: T;
  length = 0;
  readonly #make: (size: number) => T;
  constructor(make: (size: number) => T) {
    this.#make = make;
    this.array = make(1 << 12);
  }
  push(value: number): void {
    if (this.length === this.array.length) this.#resize(this.array.length * 2);
    this.array[this.length++] = value;
  }
  /** Room for `count` more values without another copy (a known-size append). */
  reserve(count: number): void {
    if (this.length + count > this.array.length) this.#resize(this.length + count);
  }
  /** Room for `total` values in all, grown to now (a size expected from what has been read so far). */
  expect(total: number): void {
    if (total > this.array.length) this.#resize(total);
  }
  /** `values` appended as they are. */
  append(values: ArrayLike<number>): void {
    this.reserve(values.length);
    this.array.set(values, this.length);
    this.length += values.length;
  }
  /**
   * The first `count` values: a view of the array when they fill all but a sixteenth of it (the rest is not worth
   * a copy of the whole; the view's buffer, moved to another thread or kept, carries it), else a copy.
   */
  done(count = this.length): T {
    const array = this.array;
    if (count === array.length) return array;
    return (
      array.length - count <= array.length / 16 ? array.subarray(0, count) : array.slice(0, count)
    ) as T;
  }
  #resize(size: number): void {
    const bigger = this.#make(size);
    bigger.set(this.array.subarray(0, this.length));
    this.array = bigger;
  }
}
