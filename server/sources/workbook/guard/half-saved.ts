/**
 * Signs that bytes read are another program's save in place caught half way: the file emptied, then written
 * (openpyxl's `wb.save(path)`, pandas' `to_csv(path)`, a script's `open(path, 'w')`). Such a save can take
 * seconds at a million rows. Each sign holds only while the file changed moments ago: a file left that way is
 * what it is (checked-bytes.ts decides what then). A save by rename (Excel, LibreOffice, SheetPort's own
 * rewrites) gives the path a new inode, whole, and is never read half written.
 */
import type { FileBytes } from './read-regular-file.ts';
import { reasonOf } from './unreadable.ts';
import { ZIP_LOCAL_HEADER } from './zip-package.ts';

/** How long after its last change a file may still be a save under way (many clock ticks, a save's pauses). */
export const SAVE_UNDER_WAY_MS = 2000;

/**
 * How long a file must hold still after a change before it is taken for a finished save: a writer flushes its
 * buffer every few kilobytes, milliseconds apart, so a save under way changes the file well within this. The
 * file watch waits as long after a folder's last event (file-watch.ts).
 */
export const SAVE_QUIET_MS = 150;

/** Changed less than SAVE_UNDER_WAY_MS ago (a modification time ahead of the clock, another machine's share, too). */
export function changedMomentsAgo(read: FileBytes, nowMs = Date.now()): boolean {
  return Math.abs(nowMs - read.modifiedMs) < SAVE_UNDER_WAY_MS;
}

/**
 * A package refused before its end was written: nothing yet, or a zip's first bytes without the directory a zip
 * ends with. Not a file of some other kind (a text renamed .xlsx), nor a zip that has its end.
 */
export function packageCutShort(bytes: Uint8Array, error: unknown): boolean {
  const head = bytes.subarray(0, ZIP_LOCAL_HEADER.length);
  if (!ZIP_LOCAL_HEADER.subarray(0, head.length).equals(head)) return false;
  return head.length < ZIP_LOCAL_HEADER.length || reasonOf(error) === 'corrupt';
}

/** How many bytes of a text version's end are kept to see whether a later version still holds them there. */
const TAIL_BYTES = 64;

/**
 * What a text file (a .csv) read now is, against the last version read whole. Such a file has no end to miss:
 * read half written, it is rows, and the rows not written yet would be reported deleted. A common writer ends
 * every line with a line break, and its buffer is flushed every few kilobytes, wherever that falls.
 * - `whole`: take it (a new inode, left alone, or the last version's bytes still where they were with whole
 *   lines after them: an append, SheetPort's own in place included);
 * - `under_way`: changed in place moments ago and ends inside a line (or holds nothing): most likely a save
 *   caught half way;
 * - `settle`: changed in place moments ago, at a line's end, the last version's end not where it was (shorter,
 *   or other bytes there), or changed moments ago with no version to compare with (a first read, which a restart
 *   diffs against the stored baseline): whole only if it holds still for SAVE_QUIET_MS.
 */
export type TextVerdict = 'whole' | 'under_way' | 'settle';

export class TextVersions {
  #last: { inode: number; size: number; tail: Buffer } | null = null;

  verdict(read: FileBytes): TextVerdict {
    const last = this.#last;
    if (!changedMomentsAgo(read)) return 'whole';
    if (!last) return 'settle';
    if (read.inode !== last.inode) return 'whole';
    const { bytes } = read;
    if (endsInsideLine(bytes)) return 'under_way';
    if (bytes.length < last.size) return 'settle';
    const tail = bytes.subarray(last.size - last.tail.length, last.size);
    return Buffer.compare(tail, last.tail) === 0 ? 'whole' : 'settle';
  }

  /** `read` is taken: later versions are compared with it (one that ends inside a line, with nothing). */
  taken(read: FileBytes): void {
    this.#take(read.inode, read.bytes);
  }

  /** SheetPort wrote the file (inode and size as given), its last bytes `chunks`' last: compared with it from now. */
  written(inode: number, size: number, chunks: readonly Uint8Array[]): void {
    const end = Buffer.concat(chunks.slice(-2).map((c) => c.subarray(Math.max(0, c.length - TAIL_BYTES))));
    this.#take(inode, end, size);
  }

  #take(inode: number, end: Uint8Array, size = end.length): void {
    const tail = end.subarray(Math.max(0, end.length - TAIL_BYTES));
    this.#last = endsInsideLine(tail) || tail.length === 0 ? null : { inode, size, tail: Buffer.from(tail) };
  }
}

/** Ends inside a line, or holds nothing: where a save's buffer was last flushed, or a writer without line ends. */
function endsInsideLine(bytes: Uint8Array): boolean {
  const last = bytes[bytes.length - 1];
  return last !== 0x0a && last !== 0x0d;
}
