/**
 * The only way a connected file's bytes are read. The path may have been swapped for anything since it was
 * connected: a FIFO (a blocking open or read would hang a thread-pool thread, and with it every later file
 * access, for ever), a device such as /dev/zero behind a symlink (an endless read), a folder, or a file far
 * too big. So the path is opened non-blocking, the open descriptor is checked (no race between check and
 * read), and only a regular file within the size limit is read.
 */
import { constants as bufferConstants } from 'node:buffer';
import { constants } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import { WORKBOOK_EXTENSIONS_TEXT } from '../../../lib/workbook-file-types.ts';
import { signatureOf } from '../file-signature.ts';
import { fileError } from '../lock.ts';
import { megabytes, unreadable } from './unreadable.ts';

export interface FileBytes {
  bytes: Uint8Array;
  /** `mtime:size:inode` of what was read, as fstat saw it on the open descriptor. */
  signature: string;
  /** Its modification time (ms since the epoch), as fstat saw it. */
  modifiedMs: number;
  /** Its inode, as fstat saw it: the same after a save in place, another after a save by rename. */
  inode: number;
}

/**
 * A file read as text (a CSV) becomes one string, and V8's longest string is 536,870,888 UTF-16 units: a UTF-8
 * file of that many bytes always fits (no byte makes more than one unit), one byte more may not. No setting
 * raises this; the file limit can only lower it.
 */
export const MAX_TEXT_FILE_BYTES = bufferConstants.MAX_STRING_LENGTH;

// O_NONBLOCK: opening a FIFO for reading must not wait for a writer (Windows has no such flag, nor FIFOs).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** What fstat saw of the file a refusal was about (the refusals made after it): see `signatureRefused`. */
const refusedVersions = new WeakMap<object, string>();

/**
 * The signature of the file as it was when `error` refused it, or null when it was refused before anything was
 * seen of it (an open that failed). A failure is remembered for this version only: what the path holds by the
 * time the refusal is handled may be the end of a save in place that was read half written.
 */
export function signatureRefused(error: unknown): string | null {
  return (typeof error === 'object' && error !== null && refusedVersions.get(error)) || null;
}

/** The file's bytes, if it is a regular file of at most `maxBytes` (and, `asText`, at most MAX_TEXT_FILE_BYTES). */
export async function readRegularFile(
  filePath: string,
  maxBytes: number,
  asText = false,
): Promise<FileBytes> {
  let handle: FileHandle;
  try {
    handle = await fs.open(filePath, OPEN_FLAGS);
  } catch (e) {
    // A UNIX socket cannot be opened at all (ENXIO; EOPNOTSUPP on some systems): it is not a file either.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENXIO' || code === 'EOPNOTSUPP') throw notAFile(filePath);
    throw fileError(e, filePath);
  }
  let signature: string | null = null;
  try {
    const st = await handle.stat();
    signature = signatureOf(st);
    const modifiedMs = st.mtimeMs;
    if (!st.isFile()) throw notAFile(filePath);
    // A CSV past the longest text is named as such whatever the file limit says: raising that limit cannot help.
    if (asText && st.size > MAX_TEXT_FILE_BYTES) {
      throw unreadable(
        'too_large',
        filePath,
        `is ${megabytes(st.size)}, over the ${megabytes(MAX_TEXT_FILE_BYTES)} a CSV file can be read as (one text); split it into several files.`,
      );
    }
    if (st.size > maxBytes) {
      throw unreadable(
        'too_large',
        filePath,
        `is ${megabytes(st.size)}, over the ${megabytes(maxBytes)} limit for a workbook file (SHEETPORT_MAX_FILE_MB).`,
      );
    }
    // Read what fstat promised and no more: a file growing meanwhile changes its signature, and the caller
    // compares signatures before trusting the bytes.
    // Never from the shared small-buffer pool: the bytes are handed (transferred) to the parse worker.
    const bytes = Buffer.allocUnsafeSlow(st.size);
    let filled = 0;
    while (filled < st.size) {
      const { bytesRead } = await handle.read(bytes, filled, st.size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: bytes.subarray(0, filled), signature, modifiedMs, inode: st.ino };
  } catch (e) {
    const error = fileError(e, filePath);
    if (signature !== null && typeof error === 'object' && error !== null)
      refusedVersions.set(error, signature);
    throw error;
  } finally {
    await handle.close().catch(() => {});
  }
}

function notAFile(filePath: string) {
  return unreadable(
    'not_a_file',
    filePath,
    `is not a regular file (it is a folder, a device, a pipe or a socket); connect an ${WORKBOOK_EXTENSIONS_TEXT} file.`,
  );
}
