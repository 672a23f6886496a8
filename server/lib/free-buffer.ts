/**
 * Gives a buffer's memory back now, when nothing will read it again. A buffer left to the garbage collector
 * is freed by the next full collection, and after a burst of work V8 may not make one until its memory
 * reducer runs, 8 to 17 quiet seconds later: the 23 MB of transient bytes a 100,000-row tab's first recording
 * makes stayed resident that long (ten times that at a million rows). Detaching the buffer (ES2024's
 * `transfer` to a length of 0) drops its bytes at once; every view of it reads as empty afterwards.
 *
 * Only a view that spans its whole buffer is freed: a small Buffer may be a slice of Node's shared pool,
 * whose other slices belong to someone else.
 */
export function freeBytes(view: ArrayBufferView): void {
  const buffer = view.buffer as ArrayBuffer & {
    transfer?: (length: number) => ArrayBuffer;
    detached?: boolean;
  };
  if (view.byteOffset !== 0 || view.byteLength !== buffer.byteLength) return;
  const holds = held.get(buffer);
  if (holds !== undefined) {
    holds.freed = true;
    return;
  }
  // A SharedArrayBuffer has no `transfer` (other threads may hold it); a runtime without it keeps the old way.
  if (typeof buffer.transfer === 'function' && !buffer.detached) buffer.transfer(0);
}

/**
 * Gives back the buffers under `views` (slices of them included) when the views are all that anyone reads of
 * them, e.g. a stream's output chunks once they are copied into one: each distinct buffer is detached once.
 * Node's shared pool (small Buffers are slices of it) is never touched.
 */
export function freeBuffersUnder(views: readonly ArrayBufferView[]): void {
  const seen = new Set<ArrayBufferLike>();
  for (const view of views) {
    const buffer = view.buffer;
    if (seen.has(buffer) || buffer.byteLength <= Buffer.poolSize) continue;
    seen.add(buffer);
    freeBytes(new Uint8Array(buffer));
  }
}

/** Buffers something still reads in the background, and whether a free was asked meanwhile. */
const held = new WeakMap<ArrayBufferLike, { count: number; freed: boolean }>();

/**
 * Holds `buffers` while background work reads them (an asynchronous write of their bytes): a `freeBytes` of
 * one meanwhile waits for the release this returns, so the bytes never go while a write still reads them.
 */
export function holdBytes(buffers: readonly ArrayBuffer[]): () => void {
  for (const buffer of buffers) {
    const holds = held.get(buffer);
    if (holds) holds.count++;
    else held.set(buffer, { count: 1, freed: false });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const buffer of buffers) {
      const holds = held.get(buffer);
      if (!holds || --holds.count > 0) continue;
      held.delete(buffer);
      if (holds.freed) freeBytes(new Uint8Array(buffer));
    }
  };
}
