/**
 * A zip part's bytes as they inflate, a chunk at a time, on the thread pool: whoever reads them works on one
 * chunk while the next inflates (zlib waits for a chunk to be taken before making another, so at most about
 * two are held). Never more than the `size` the zip's directory declares: past it, PartTooLarge.
 */
import { createInflateRaw } from 'node:zlib';
import { PartTooLarge } from '../guard/zip-directory.ts';
import { damaged } from './zip-archive.ts';

/** `data` as stored (`method` 0) or deflated (8), inflating to at most `size` bytes. */
export async function* inflatedChunks(
  data: Uint8Array,
  method: number,
  size: number,
  chunkBytes = 1 << 20,
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
