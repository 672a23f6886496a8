/**
 * A file's read: the one kept for exactly these bytes when there is one (kept-read.ts), else a parse in the
 * parse thread (parse-off-thread.ts), which keeps its result for the next time. Without a place to keep reads
 * (`kept` unset: a test, a caller without a data dir), always the parse.
 */
import type { KeptReadsPolicy } from '../../kept-reads.ts';
import { keptReadFile, keptReadKey, readKept } from './kept-read.ts';
import { type OffThreadParse, parseOffThread } from './parse-off-thread.ts';

export async function parsedOrKept(
  request: OffThreadParse,
  kept: KeptReadsPolicy | undefined,
): Promise<unknown> {
  if (!kept) return parseOffThread(request);
  const key = await keptReadKey(request.bytes, request.engine, request.limits);
  const file = keptReadFile(kept, request.filePath);
  const payload = await readKept(file, key);
  if (payload !== null) return payload;
  return parseOffThread({ ...request, keepAs: { file, key, minFreeBytes: kept.minFreeBytes } });
}
