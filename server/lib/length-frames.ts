/**
 * Length-prefixed frames (a 4-byte little-endian length, then that many bytes) cut out of a stream of chunks as
 * they arrive, so a long stream is read a frame at a time and never held whole. The chunks need not fall on
 * frame bounds; a frame is copied out only when it spans chunks.
 */
export class LengthFrames {
  #chunks: Buffer[] = [];
  /** Bytes held in `#chunks`. */
  #held = 0;

  /** Adds a chunk; answers the frames it completed, in order. */
  push(chunk: Buffer): Buffer[] {
    if (chunk.length > 0) this.#chunks.push(chunk);
    this.#held += chunk.length;
    const frames: Buffer[] = [];
    for (;;) {
      if (this.#held < 4) return frames;
      const length = this.#peekLength();
      if (this.#held < 4 + length) return frames;
      this.take(4);
      frames.push(this.take(length));
    }
  }

  /** Bytes received and not yet part of a frame (a stream that ends with some was cut short). */
  get pending(): number {
    return this.#held;
  }

  /** The next `count` bytes (there must be that many): a view when one chunk holds them, else a copy. */
  take(count: number): Buffer {
    if (count === 0) return Buffer.alloc(0);
    const first = this.#chunks[0] as Buffer;
    if (first.length >= count) {
      const out = first.subarray(0, count);
      if (first.length === count) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(count);
      this.#held -= count;
      return out;
    }
    const out = Buffer.allocUnsafe(count);
    for (let filled = 0; filled < count; ) {
      const part = this.take(Math.min(count - filled, (this.#chunks[0] as Buffer).length));
      part.copy(out, filled);
      filled += part.length;
    }
    return out;
  }

  #peekLength(): number {
    const first = this.#chunks[0] as Buffer;
    if (first.length >= 4) return first.readUInt32LE(0);
    const bytes = Buffer.alloc(4);
    let filled = 0;
    for (const chunk of this.#chunks) {
      filled += chunk.copy(bytes, filled, 0, Math.min(chunk.length, 4 - filled));
      if (filled === 4) break;
    }
    return bytes.readUInt32LE(0);
  }
}
