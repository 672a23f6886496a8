/**
 * The distinct texts of a CSV file being read, each made into a string once: a field is looked up by its bytes
 * (a hash over them, then a byte comparison with the first field that had them), so a text repeated down a
 * column costs no new string, no decoding and no Map lookup of a fresh string. Texts known only as strings (a
 * quoted field, decoded by the scanner) are looked up by string; the two lookups may give one text two ids,
 * which costs a string, never a wrong value.
 */
export class TextTable {
  readonly strings: string[] = [];
  readonly #buf: Buffer;
  #slots = new Int32Array(1 << 12).fill(-1);
  readonly #hashes: number[] = [];
  /** Where the bytes of each text looked up by bytes are (-1: looked up by string). */
  readonly #starts: number[] = [];
  readonly #lengths: number[] = [];
  readonly #byString = new Map<string, number>();

  constructor(buf: Buffer) {
    this.#buf = buf;
  }

  /** The id of the text of `buf[start, end)`. */
  idOfBytes(start: number, end: number): number {
    const buf = this.#buf;
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 16777619);
    const mask = this.#slots.length - 1;
    const length = end - start;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const id = this.#slots[slot]!;
      if (id < 0) {
        const added = this.#add(buf.toString('utf8', start, end), h, start, length);
        this.#slots[slot] = added;
        if (this.strings.length * 2 > this.#slots.length) this.#grow();
        return added;
      }
      if (
        this.#hashes[id] === h &&
        this.#lengths[id] === length &&
        this.#same(this.#starts[id]!, start, length)
      )
        return id;
    }
  }

  /** The id of a text given as a string. */
  idOfText(text: string): number {
    let id = this.#byString.get(text);
    if (id === undefined) {
      id = this.#add(text, 0, -1, -1);
      this.#byString.set(text, id);
    }
    return id;
  }

  /** Texts another table made, given ids after this one's (never looked up here): the first of their ids. */
  appendStrings(texts: readonly string[]): number {
    const base = this.strings.length;
    for (const text of texts) this.#add(text, 0, -1, -1);
    return base;
  }

  #add(text: string, hash: number, start: number, length: number): number {
    const id = this.strings.length;
    this.strings.push(text);
    this.#hashes.push(hash);
    this.#starts.push(start);
    this.#lengths.push(length);
    return id;
  }

  #same(a: number, b: number, length: number): boolean {
    const buf = this.#buf;
    for (let i = 0; i < length; i++) if (buf[a + i] !== buf[b + i]) return false;
    return true;
  }

  /** Twice the slots, every text looked up by bytes placed again. */
  #grow(): void {
    const slots = new Int32Array(this.#slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let id = 0; id < this.strings.length; id++) {
      if (this.#starts[id]! < 0) continue;
      let slot = this.#hashes[id]! & mask;
      while (slots[slot]! >= 0) slot = (slot + 1) & mask;
      slots[slot] = id;
    }
    this.#slots = slots;
  }
}
