/**
 * A write's document, made behind a read of a large file, so the first write after an open or an outside save is
 * as fast as the next ones. Preparing it (parsing the package, cutting each sheet into compressed pieces off the
 * service's thread) takes 1.8 s at a million rows (48 MB), and it was the first write's to pay.
 *
 * Only in a serving process (not for `sheetport connect`, which reads a file once and exits), only for an engine
 * that has something to prepare (WorkbookEngine.prepareAhead: .xlsx and .xlsm, not a CSV, whose
 * document is its bytes), and only from PREPARE_AHEAD_FROM_BYTES on, where a first write would otherwise take more
 * than a second: a document holds about twice its file's size, and the allocator keeps more, which a file that
 * may only be read is not worth below that (its first write parses for itself: 0.3 s at 100,000 rows, 4.6 MB, and
 * about 37 ms more a megabyte). A preparation that fails answers nothing: the write that needs the document parses
 * again and says why.
 */
import { setImmediate } from 'node:timers/promises';
import type { WorkbookDocument } from './document.ts';
import type { FileReads } from './guard/parse-or-kept.ts';

export const PREPARE_AHEAD_FROM_BYTES = 24 * 2 ** 20;

export class DocumentAhead {
  /** Whether documents are made at all (SourceOptions.prepareWritesAhead, WorkbookEngine.prepareAhead). */
  readonly #enabled: boolean;
  /** The document being made for one version of the file (its stat signature). */
  #ahead: { signature: string; doc: Promise<WorkbookDocument | null> } | null = null;

  constructor(enabled: boolean) {
    this.#enabled = enabled;
  }

  /**
   * A read of the version `signature`, of `size` bytes, has been taken in: prepare its document with `make`
   * (null when it no longer can, e.g. the file changed again), once the reads waiting for this one have their
   * answers. Whatever was prepared for an earlier version is let go.
   */
  afterRead(signature: string, size: number, make: () => Promise<WorkbookDocument | null>): void {
    if (!this.#enabled || size < PREPARE_AHEAD_FROM_BYTES) {
      this.#ahead = null;
      return;
    }
    const doc = setImmediate().then(make);
    this.#ahead = { signature, doc: doc.catch(() => null) };
  }

  /** The prepared document of this version, for one write (it is then that write's); null when there is none. */
  async take(signature: string): Promise<WorkbookDocument | null> {
    const ahead = this.#ahead;
    if (ahead?.signature !== signature) return null;
    this.#ahead = null;
    return ahead.doc;
  }
}

/**
 * Where what a document prepared is kept: the file's reads, the name of the read it was made from (if any), and
 * what was kept for that read, being read back.
 */
export interface PreparedKeep {
  reads: FileReads;
  path: string;
  identity: string | null;
  kept: Promise<unknown> | null;
}

/**
 * The keep of the document of the read named `identity`, its kept form read back from now on: beside the file's
 * bytes read again and its package parsed, not after them (at a million rows each took about 0.7 s of the first
 * write after a restart).
 */
export function preparedKeep(reads: FileReads, path: string, identity: string | null): PreparedKeep {
  return { reads, path, identity, kept: identity ? reads.keptPrepared(path, identity) : null };
}

/**
 * Every tab of `doc` prepared for a write: from what was kept for the same read when there is such (a restart on
 * the same bytes: about 0.7 s of reading on a thread of its own, begun with the preparation, where cutting a
 * million-row sheet took 3.1-3.5 s of both cores), else made, and then kept for the next start.
 */
export async function prepareEveryTab(
  doc: WorkbookDocument,
  tabs: readonly { sourceSheetId: string }[],
  { reads, path, identity, kept: keptForm }: PreparedKeep,
): Promise<void> {
  const kept = doc.takePreparedForm && keptForm ? await keptForm : null;
  const taken = kept !== null && doc.takePreparedForm?.(kept) === true;
  // Tabs whose sheets were taken have nothing left to do; any other is prepared as without a kept form.
  for (const tab of tabs) await doc.prepare?.(tab.sourceSheetId, { ahead: true });
  if (identity && !taken) {
    const form = doc.preparedForm?.();
    if (form) reads.keepPrepared(path, identity, form);
  }
}
