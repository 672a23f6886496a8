/** A typed array grown as needed, by doubling, and cut to its length at the end. */
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
  /** `values` appended as they are. */
  append(values: ArrayLike<number>): void {
    this.reserve(values.length);
    this.array.set(values, this.length);
    this.length += values.length;
  }
  /** The first `count` values, the array itself when it holds exactly those (no copy). */
  done(count = this.length): T {
    return count === this.array.length ? this.array : (this.array.slice(0, count) as T);
  }
  #resize(size: number): void {
    const bigger = this.#make(size);
    bigger.set(this.array.subarray(0, this.length));
    this.array = bigger;
  }
}
