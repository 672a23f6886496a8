/**
 * A Uint16Array made longer for an append without copying what it holds: the new version is a longer view of
 * the same buffer, whose spare room the old version never reads. Versions of a tab are immutable, so only one
 * version may ever grow into a buffer's room: the first to claim it. Any other (a version grown from an older
 * one, or again from the same one after a write that failed) gets a copy, with room of its own. Used for a
 * tab's format codes (two bytes a cell: 20 MB at a million rows of ten columns), which every append to a large
 * sheet copied whole before.
 */

/** How far each buffer's room has been claimed, in elements from its start. */
const claimedTo = new WeakMap<ArrayBufferLike, number>();

/** Room made with a copy: an eighth more, so a run of appends copies about eight times less often. */
const ROOM_SHARE = 8;

/**
 * `values` lengthened to `size`, the new elements zero. The answer shares `values`' elements when its buffer has
 * room that no other version claimed; otherwise it is a copy in a new buffer with room. Either way its first
 * `values.length` elements must not be written (they may be `values`' own): only those after them.
 */
export function lengthened(values: Uint16Array, size: number): Uint16Array {
  const start = values.byteOffset / Uint16Array.BYTES_PER_ELEMENT;
  const end = start + values.length;
  const capacity = values.buffer.byteLength / Uint16Array.BYTES_PER_ELEMENT;
  if (size <= values.length) throw new RangeError('lengthened: the new size must be larger');
  // Only a buffer made here has room known to be zero and unread: any other is copied once, with room.
  if (claimedTo.get(values.buffer) === end && start + size <= capacity) {
    claimedTo.set(values.buffer, start + size);
    return new Uint16Array(values.buffer, values.byteOffset, size);
  }
  const copy = new Uint16Array(size + Math.ceil(size / ROOM_SHARE));
  copy.set(values);
  claimedTo.set(copy.buffer, size);
  return copy.subarray(0, size);
}
