/**
 * Appends that grow a tab's format codes (lib/append-room.ts): the room after a copy is used in place, only
 * the first version grown from a buffer may use it, and the shorter versions keep reading their own elements.
 */
import { describe, expect, it } from 'vitest';
import { lengthened } from '../../server/lib/append-room.ts';

describe('lengthened', () => {
  it('copies a buffer it did not make, then grows into the room of its own copy without copying', () => {
    const first = Uint16Array.from([1, 2, 3]);
    const second = lengthened(first, 4);
    expect(second.buffer).not.toBe(first.buffer);
    expect([...second]).toEqual([1, 2, 3, 0]);
    second[3] = 4;
    const third = lengthened(second, 5);
    expect(third.buffer).toBe(second.buffer);
    expect([...third]).toEqual([1, 2, 3, 4, 0]);
    expect([...second]).toEqual([1, 2, 3, 4]);
  });

  it('lets only one version grow into a buffer’s room: another grown from the same one gets a copy', () => {
    const base = lengthened(Uint16Array.from([7, 8]), 3);
    const grownOnce = lengthened(base, 4);
    grownOnce[3] = 9;
    // A write that failed is grown from its old version again: the room is the failed version's, so it copies.
    const grownAgain = lengthened(base, 4);
    expect(grownAgain.buffer).not.toBe(grownOnce.buffer);
    expect([...grownAgain]).toEqual([7, 8, 0, 0]);
    grownAgain[3] = 5;
    expect(grownOnce[3]).toBe(9);
  });

  it('copies when the room is too small, and refuses a size that does not grow', () => {
    let codes = lengthened(new Uint16Array(8), 8 + 1);
    const buffers = new Set<ArrayBufferLike>();
    for (let size = 10; size < 200; size++) {
      codes = lengthened(codes, size);
      codes[size - 1] = size;
      buffers.add(codes.buffer);
    }
    expect(buffers.size).toBeLessThan(40);
    for (let i = 9; i < 199; i++) expect(codes[i]).toBe(i + 1);
    expect(() => lengthened(codes, codes.length)).toThrow(RangeError);
  });
});
