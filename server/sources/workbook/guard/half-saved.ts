/**
 * Signs that bytes read are another program's save in place caught half way: the file emptied, then written
 * (openpyxl's `wb.save(path)`, pandas' `to_csv(path)`, a script's `open(path, 'w')`). Such a save can take
 * seconds at a million rows. Each sign holds only while the file changed moments ago: a file left that way is
 * what it is (checked-bytes.ts decides what then).
 */
import type { FileBytes } from './read-regular-file.ts';
import { reasonOf } from './unreadable.ts';

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

/** A package refused as cut short or not yet a zip: its end, the zip's directory, is not written yet. */
export function packageCutShort(error: unknown): boolean {
  const reason = reasonOf(error);
  return reason === 'corrupt' || reason === 'not_a_workbook';
}

/**
 * A text file (a .csv) that ends inside a line, or holds nothing: where a save's buffer was last flushed. Every
 * common writer ends a .csv with a line break; one that does not is read as it is once it has been left alone.
 */
export function endsInsideLine(bytes: Uint8Array): boolean {
  const last = bytes[bytes.length - 1];
  return last !== 0x0a && last !== 0x0d;
}
