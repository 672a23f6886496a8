/**
 * Adding lines at the end of a .csv file in place, instead of replacing the whole file (atomic-file.ts): the
 * cost of an append no longer grows with the file. Used only when the result is byte for byte the file a full
 * replace would have written (the document decides: csv.ts `appendedBytes`), and only under the same condition
 * as the replace: the file is still the version the write was based on.
 *
 * - The descriptor is opened on the path itself (no symlink followed: a replace would put a file in the link's
 *   place) with O_APPEND, and its fstat must match `basedOn` (same inode, size and mtime) before anything is
 *   written; else `ChangedMeanwhile` and the write starts over from the file.
 * - Only an inode with no other name is changed (`nlink` 1): a kept version (backups.ts, undo-replace.ts) or a
 *   hard link made by someone else shares the inode and would change with it, so the full replace is used then.
 * - The line goes in with one write() (a short write is finished or, on an error, truncated back), then
 *   fdatasync. Afterwards the path must still name the descriptor's inode: if another program replaced the file
 *   by a rename meanwhile, what was appended to the old inode is truncated back out of it and the write starts
 *   over from the new file, so an append is never lost in a dead inode nor left in another program's file.
 * - If anything else wrote to the same inode meanwhile (its size is not the one expected) the write is refused as
 *   a conflict: the file holds both, and is read again.
 */
import fsSync from 'node:fs';
import { promisify } from 'node:util';
import { AppError } from '../../errors.ts';
import { ChangedMeanwhile, type PreviousVersionKeeper } from './atomic-file.ts';
import { signatureOf } from './file-signature.ts';

const fdatasync = promisify(fsSync.fdatasync);

/**
 * The lines at the end of the file, if the file can take them in place; null when it cannot (the caller replaces
 * the file instead). Resolves to the file's signature after the append.
 */
export async function appendInPlace(
  filePath: string,
  bytes: Uint8Array,
  options: { basedOn: string; keeper?: PreviousVersionKeeper | undefined },
): Promise<string | null> {
  let fd: number;
  try {
    fd = fsSync.openSync(
      filePath,
      fsSync.constants.O_WRONLY | fsSync.constants.O_APPEND | fsSync.constants.O_NOFOLLOW,
    );
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ChangedMeanwhile();
    if (code === 'ELOOP' || code === 'EISDIR') return null; // a symlink (or not a file): the replace decides
    throw e;
  }
  try {
    const before = fsSync.fstatSync(fd);
    if (!before.isFile() || before.nlink !== 1) return null;
    if (signatureOf(before) !== options.basedOn) throw new ChangedMeanwhile();
    const settle = await options.keeper?.beforeAppend?.(filePath, { ino: before.ino, size: before.size });
    let left: string;
    try {
      // The keeper may have waited: the file must still be the version read the instant before the write.
      if (signatureOf(fsSync.fstatSync(fd)) !== options.basedOn || !samePlace(filePath, before)) {
        throw new ChangedMeanwhile();
      }
      writeWhole(fd, bytes, before.size);
      const after = fsSync.fstatSync(fd);
      await fdatasync(fd);
      if (!samePlace(filePath, after)) {
        // Replaced by another program meanwhile: our lines leave the old file, and the write goes to the new one.
        if (fsSync.fstatSync(fd).size === before.size + bytes.byteLength)
          fsSync.ftruncateSync(fd, before.size);
        throw new ChangedMeanwhile();
      }
      if (after.size !== before.size + bytes.byteLength) {
        throw new AppError(
          'conflict',
          'Another program wrote to the file at the same moment as this append; both are in the file now. Read the rows again before retrying.',
        );
      }
      left = signatureOf(after);
    } catch (e) {
      await settle?.(null);
      throw e;
    }
    await settle?.(left);
    return left;
  } finally {
    fsSync.closeSync(fd);
  }
}

/** All of `bytes` written at the end; on a failure part-way, the file is cut back to `size` (nothing added). */
function writeWhole(fd: number, bytes: Uint8Array, size: number): void {
  let done = 0;
  try {
    while (done < bytes.byteLength) {
      const n = fsSync.writeSync(fd, bytes, done, bytes.byteLength - done);
      if (n === 0) throw new Error('the file system accepted no more bytes');
      done += n;
    }
  } catch (e) {
    if (done > 0) fsSync.ftruncateSync(fd, size);
    throw e;
  }
}

/** Whether the path still names the file the descriptor has open. */
function samePlace(filePath: string, open: fsSync.Stats): boolean {
  try {
    const now = fsSync.lstatSync(filePath);
    return now.ino === open.ino && now.dev === open.dev;
  } catch {
    return false;
  }
}
