/**
 * A zip part's bytes as they inflate, a chunk at a time, on the thread pool: whoever reads them works on one
 * chunk while the next inflates (zlib waits for a chunk to be taken before making another, so at most about
 * two are held). Never more than the `size` the zip's directory declares: past it, PartTooLarge.
 */
import { createInflateRaw } from 'node:zlib';
import { PartTooLarge } from '../guard/zip-directory.ts';
import { damaged } from './zip-archive.ts';

/**
 * How much is inflated at a time: just under the 1 MB from which glibc's allocator, as SheetPort runs it
 * (bin/malloc-tunables.js), maps each buffer on its own and unmaps it when freed. Chunks of exactly 1 MB were
 * each mapped afresh, their pages faulted in again every time: at a million rows, 347 chunks of sheet XML cost
 * about 78,000 page faults and a third of a second of the kernel's time a read, which chunks from the
 * allocator's arena, reused, do not.
 */
export const INFLATE_CHUNK_BYTES = (1 << 20) - (64 << 10);

/** `data` as stored (`method` 0) or deflated (8), inflating to at most `size` bytes. */
export async function* inflatedChunks(
  data: Uint8Array,
  method: number,
  size: number,
  chunkBytes = INFLATE_CHUNK_BYTES,
): AsyncGenerator<Buffer> {
  if (method === 0) {
    for (let at = 0; at < data.length; at += chunkBytes)
      yield Buffer.from(data.buffer, data.byteOffset + at, Math.min(chunkBytes, data.length - at));
    return;
  }
  const inflater = createInflateRaw({ chunkSize: Math.max(64, chunkBytes) });
  inflater.end(data);
  let inflated = 0;
  try {
    for await (const chunk of inflater) {
      inflated += (chunk as Buffer).length;
      if (inflated > size) throw new PartTooLarge();
      yield chunk as Buffer;
    }
  } catch (e) {
    // zlib's own errors (Z_DATA_ERROR, ...) say the deflate stream is broken.
    if (String((e as NodeJS.ErrnoException).code).startsWith('Z_')) throw damaged();
    throw e;
  } finally {
    inflater.destroy();
  }
}
