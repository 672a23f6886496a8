/**
 * One file's reads: the one kept for exactly these bytes when there is one (kept-read.ts), else a parse in the
 * parse thread (parse-off-thread.ts), which keeps its result for the next time unless the file has closed
 * meanwhile (keep-gate.ts). Without a place to keep reads (a test, a caller without a data dir), always the parse.
 */
import { freeBytes } from '../../../lib/free-buffer.ts';
import type { KeptReadsPolicy } from '../../kept-reads.ts';
import { KeepGate } from './keep-gate.ts';
import { keptReadFile, keptReadKey, readKept } from './kept-read.ts';
import { type OffThreadParse, parseOffThread } from './parse-off-thread.ts';

export class FileReads {
  readonly #kept: KeptReadsPolicy | undefined;
  /** The gate of the parse under way, if one may still keep. */
  #gate: KeepGate | null = null;
  #closed = false;

  constructor(kept: KeptReadsPolicy | undefined) {
    this.#kept = kept;
  }

  async read(request: OffThreadParse): Promise<unknown> {
    const kept = this.#closed ? undefined : this.#kept;
    if (!kept) return parseOffThread(request);
    const key = await keptReadKey(request.bytes, request.engine, request.limits);
    const file = keptReadFile(kept, request.filePath);
    const payload = await readKept(file, key);
    if (payload !== null) {
      // The bytes are taken over, as a parse moves them to its thread: given back now, not at a full collection
      // (the whole file, 48 MB at a million rows, held for seconds after a start from a kept read).
      freeBytes(request.bytes);
      return payload;
    }
    // Closed while the bytes were hashed: nothing to keep (no await between this look and the gate's making).
    if (this.#closed) return parseOffThread(request);
    const gate = new KeepGate();
    this.#gate = gate;
    try {
      const keepAs = { file, key, minFreeBytes: kept.minFreeBytes, gate: gate.shared };
      return await parseOffThread({ ...request, keepAs });
    } finally {
      if (this.#gate === gate) this.#gate = null;
    }
  }

  /** Nothing is kept from now on; resolves once a keep under way has ended. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#gate?.shut();
  }
}
