/**
 * One file's reads: the one kept for exactly these bytes when there is one (kept-read.ts), else a parse in the
 * parse thread (parse-off-thread.ts), whose result is kept for the next time behind the answer: the read is
 * decoded and served while its bytes are written (a million rows: 0.3 s of writing no longer before the first
 * answer), and nothing gives those bytes back before they are written (free-buffer.ts `holdBytes`). A file
 * that has closed keeps nothing more, and its close waits for a keep under way, so nothing of a stopped
 * service is written into its data dir afterwards. Without a place to keep reads (a test, a caller without a
 * data dir), always the parse.
 *
 * A read that has a kept-read key is named by it (`identity`): the same key, the same rows (read-identity.ts).
 */
import { freeBytes, holdBytes } from '../../../lib/free-buffer.ts';
import type { KeptReadsPolicy } from '../../kept-reads.ts';
import type { PreparedForm } from '../document.ts';
import {
  crcsOf,
  type KeepAs,
  keepRead,
  keptReadFile,
  keptReadKey,
  type ReadToKeep,
  readKept,
  skeletonOf,
} from './kept-read.ts';
import { type OffThreadParse, parseOffThread, parseOffThreadRead } from './parse-off-thread.ts';

export class FileReads {
  readonly #kept: KeptReadsPolicy | undefined;
  /** Keeps under way, which a close waits for. */
  readonly #keeping = new Set<Promise<void>>();
  #closed = false;

  constructor(kept: KeptReadsPolicy | undefined) {
    this.#kept = kept;
  }

  async read(request: OffThreadParse): Promise<{ payload: unknown; identity: string | null }> {
    const kept = this.#closed ? undefined : this.#kept;
    if (!kept) return { payload: await parseOffThread(request), identity: null };
    const key = await keptReadKey(request.bytes, request.engine, request.limits);
    const file = keptReadFile(kept, request.filePath);
    const payload = await readKept(file, key);
    if (payload !== null) {
      // The bytes are taken over, as a parse moves them to its thread: given back now, not at a full collection
      // (the whole file, 48 MB at a million rows, held for seconds after a start from a kept read).
      freeBytes(request.bytes);
      return { payload, identity: key };
    }
    const read = await parseOffThreadRead(request);
    // Closed meanwhile (its service stopping): nothing more goes into the data dir.
    if (!this.#closed) this.#keep({ file, key, minFreeBytes: kept.minFreeBytes }, read);
    return { payload: read.payload, identity: key };
  }

  /**
   * What a write prepared from the bytes of the read named `identity`, kept by `keepPrepared` (a large sheet cut
   * into pieces: seconds of work a restart on the same bytes need not do again), or null.
   */
  async keptPrepared(filePath: string, identity: string): Promise<unknown> {
    const kept = this.#closed ? undefined : this.#kept;
    return kept ? readKept(keptReadFile(kept, filePath, 'prepared'), identity) : null;
  }

  /**
   * Keeps `form` (a document's `preparedForm`) as what was prepared from the read named `identity`, behind the
   * caller. Its skeleton and CRCs are taken here, on the service's thread (a million rows: about 13 ms).
   */
  keepPrepared(filePath: string, identity: string, form: PreparedForm): void {
    const kept = this.#closed ? undefined : this.#kept;
    if (!kept) return;
    const skeleton = skeletonOf(form.payload, form.buffers);
    const file = keptReadFile(kept, filePath, 'prepared');
    const read = { skeleton, buffers: form.buffers, crcs: crcsOf(skeleton, form.buffers) };
    this.#keep({ file, key: identity, minFreeBytes: kept.minFreeBytes }, read);
  }

  #keep(as: KeepAs, read: ReadToKeep): void {
    const release = holdBytes(read.buffers);
    const keeping = keepRead(as, read)
      .catch(() => {})
      .finally(() => {
        release();
        this.#keeping.delete(keeping);
      });
    this.#keeping.add(keeping);
  }

  /** Nothing is kept from now on; resolves once the keeps under way have ended. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#keeping);
  }
}
