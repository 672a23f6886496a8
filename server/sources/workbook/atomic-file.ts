/**
 * Replacing a file so that readers (Excel, a sync client, our own reader) see either the old bytes or the
 * new ones, never a half-written file, a crash mid-write leaves the original intact, and another program's save
 * is never replaced by a write that did not see it.
 *
 * The new bytes go to a hidden temp file in the same directory (same file system), which is fsynced. Then, when
 * the write names the version it was based on (`basedOn`), the swap is conditional and has no window for an
 * outside save to slip through: the current file is renamed aside (atomic), what was moved is checked to be that
 * version (else it is put back and the write is told so), and the temp file is hard-linked into place, which
 * fails if the path was created again meanwhile (another program's save, which then stands). The path is empty
 * for the few microseconds between the rename and the link; the swap is synchronous, so nothing in this process
 * sees that instant. Finally the directory is fsynced so the swap itself is durable. A keeper (backups.ts) may
 * keep the version being replaced, just before the swap.
 *
 * Only the data calls (writing the bytes, the fsyncs) go through the thread pool; the metadata calls (stat,
 * chmod, rename, link, opening the directory) are synchronous: each takes microseconds on a local disk, where an
 * asynchronous one costs a round trip through the pool, and a write's latency is the sum of them all.
 */
import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { signatureOf } from './file-signature.ts';
import { forgetWritten, noteReused, rememberWritten, reusePlan } from './reused-bytes.ts';

const fsync = promisify(fsSync.fsync);

/** Keeps the version a replace drops (backups.ts). */
export interface PreviousVersionKeeper {
  /**
   * Called once the new bytes are safely in the temp file, with the original still at its path. Throwing
   * aborts the replace (nothing changes). Resolves to what is called once the rename is done (true) or has
   * failed (false); that must not throw.
   */
  beforeReplace(filePath: string): Promise<(replaced: boolean) => Promise<void>>;
  /**
   * Called before lines are added at the end of the file in place (csv-append.ts), with its inode and length
   * before them; throwing aborts the append (nothing changes). Resolves to what is called once the append is
   * done, with the signature it left, or has failed (null); that must not throw.
   */
  beforeAppend?(
    filePath: string,
    base: { ino: number; size: number },
  ): Promise<(left: string | null) => Promise<void>>;
}

export interface ReplaceOptions {
  keeper?: PreviousVersionKeeper | undefined;
  /**
   * The signature (file-signature.ts) of the version the new bytes were made from. When given, the file is
   * replaced only if it is still that version; otherwise nothing is written and `ChangedMeanwhile` is thrown.
   */
  basedOn?: string | undefined;
  /**
   * Work of this thread that the new bytes do not depend on, done while the thread pool flushes them to disk
   * (a write's new rows: at a million rows about 25 ms that would otherwise come before or after the flush). An
   * error from it fails the replace, after the flush.
   */
  whileFlushing?: (() => void) | undefined;
}

/** The file at the path is not the version the write was based on (another program saved it, or removed it). */
export class ChangedMeanwhile extends Error {
  constructor() {
    super('The file was changed by another program while the write was being prepared');
  }
}

/**
 * SheetPort's own files beside a workbook: `.<name>.sheetport-<pid>-<random>.tmp` (new bytes on their way in)
 * and `.prev` (the version being swapped out, for microseconds). Leading dot: hidden in file managers on Linux
 * and macOS. The pid says whether the process that made one may still be using it (leftovers.ts).
 */
export const TEMP_FILE_PATTERN = /^\..+\.sheetport-(?:(\d+)-)?[0-9a-f]+\.(tmp|prev)$/;

export function tempPathFor(filePath: string, kind: 'tmp' | 'prev' = 'tmp'): string {
  return path.join(
    path.dirname(filePath),
    `.${path.basename(filePath)}.sheetport-${process.pid}-${randomBytes(6).toString('hex')}.${kind}`,
  );
}

/**
 * Returns the signature of the file written, taken from the temp file itself: a stat of the path afterwards
 * could already see another program's save, which would then pass for this write's.
 */
export async function replaceFileAtomically(
  filePath: string,
  data: Uint8Array | readonly Uint8Array[],
  options: ReplaceOptions = {},
): Promise<string> {
  const { keeper, basedOn } = options;
  let original: fsSync.Stats;
  try {
    original = fsSync.statSync(filePath);
  } catch (e) {
    if (basedOn !== undefined && codeOf(e) === 'ENOENT') throw new ChangedMeanwhile();
    throw e;
  }
  if (basedOn !== undefined && signatureOf(original) !== basedOn) throw new ChangedMeanwhile();
  const mode = original.mode & 0o7777;
  const temp = tempPathFor(filePath);
  let plan = Array.isArray(data) ? reusePlan(filePath, signatureOf(original), data) : null;
  forgetWritten(filePath); // until this write is done: a failure midway leaves nothing known of the file
  // A copy that fails (no room for it, a file system that will not copy) only costs the reuse: the plain write
  // follows, and says what is wrong if it fails too.
  let handle = plan ? await copyOf(filePath, temp).catch(() => null) : null;
  if (!handle) {
    plan = null;
    handle = await fs.open(temp, 'wx', mode);
  }
  let settle: ((replaced: boolean) => Promise<void>) | undefined;
  let written: string;
  try {
    try {
      if (plan) {
        // Copied from the version this write was made from, or the copy is of someone else's bytes.
        if (signatureOf(fsSync.statSync(filePath)) !== signatureOf(original)) throw new ChangedMeanwhile();
        for (const run of plan.runs) await writeAll(handle, run.chunks, run.position);
        await handle.truncate(plan.size);
        noteReused(plan);
      } else await writeAll(handle, data);
      fsSync.fchmodSync(handle.fd, mode); // open() applied the umask; the replacement keeps the original's mode
      try {
        fsSync.fchownSync(handle.fd, original.uid, original.gid);
      } catch {
        // only possible for root; best effort
      }
      const flushed = handle.sync();
      try {
        options.whileFlushing?.();
      } finally {
        await flushed;
      }
      // A link or rename keeps the inode, size and modification time: this is the signature at the path.
      written = signatureOf(fsSync.fstatSync(handle.fd));
    } finally {
      await handle.close();
    }
    settle = await keeper?.beforeReplace(filePath);
    if (basedOn === undefined) fsSync.renameSync(temp, filePath);
    else swapIn(filePath, temp, basedOn);
  } catch (e) {
    await fs.rm(temp, { force: true }).catch(() => {});
    await settle?.(false);
    throw e;
  }
  await syncDirectory(path.dirname(filePath));
  if (Array.isArray(data)) rememberWritten(filePath, written, data);
  await settle?.(true);
  return written;
}

/**
 * A copy of the file at `filePath` at `temp`, open for writing over: a clone sharing its blocks where the file
 * system makes one (APFS, Btrfs, XFS), else copied by the kernel (copy_file_range). Nothing is left at `temp` if
 * the copy fails (a full disk).
 */
async function copyOf(filePath: string, temp: string): Promise<fs.FileHandle> {
  try {
    await fs.copyFile(filePath, temp, fsSync.constants.COPYFILE_EXCL | fsSync.constants.COPYFILE_FICLONE);
    return await fs.open(temp, 'r+');
  } catch (e) {
    await fs.rm(temp, { force: true }).catch(() => {});
    throw e;
  }
}

/** Errors of a file system that has no hard links (FAT, exFAT, some network shares). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK']);

const codeOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;

/**
 * Puts `temp` at `filePath` only if the file there is still version `basedOn` (else throws ChangedMeanwhile and
 * leaves `temp` where it is). Synchronous from the first call to the last: this process never runs anything
 * while the path is empty.
 */
export function swapIn(filePath: string, temp: string, basedOn: string): void {
  const aside = tempPathFor(filePath, 'prev');
  try {
    fsSync.renameSync(filePath, aside);
  } catch (e) {
    if (codeOf(e) === 'ENOENT') throw new ChangedMeanwhile(); // removed by another program meanwhile
    throw e;
  }
  if (signatureOf(fsSync.statSync(aside)) !== basedOn) {
    putBack(aside, filePath); // another program's save, moved aside for an instant: it stays
    throw new ChangedMeanwhile();
  }
  try {
    fsSync.linkSync(temp, filePath);
    fsSync.unlinkSync(temp);
  } catch (e) {
    const code = codeOf(e);
    if (code === 'EEXIST') {
      // Another program saved in the instant the path was empty: its save stands, and the version this write
      // was based on (moved aside) is superseded by it as it would have been without us.
      fsSync.unlinkSync(aside);
      throw new ChangedMeanwhile();
    }
    if (!code || !NO_HARD_LINKS.has(code)) {
      putBack(aside, filePath);
      throw e;
    }
    // No hard links here: a rename, made only if the path is still empty. Exact but for the instant between
    // the check and the rename (docs/api.md).
    if (fsSync.existsSync(filePath)) {
      fsSync.unlinkSync(aside);
      throw new ChangedMeanwhile();
    }
    fsSync.renameSync(temp, filePath);
  }
  fsSync.unlinkSync(aside);
}

/** The file moved aside goes back to its path, unless another save has taken the path since (that one stands). */
function putBack(aside: string, filePath: string): void {
  try {
    fsSync.linkSync(aside, filePath);
  } catch (e) {
    const code = codeOf(e);
    if (code === 'EEXIST') {
      fsSync.unlinkSync(aside);
      return;
    }
    if (!fsSync.existsSync(filePath)) fsSync.renameSync(aside, filePath);
    else fsSync.unlinkSync(aside);
    return;
  }
  fsSync.unlinkSync(aside);
}

/**
 * The chunks written one after another from `position` (a vectored write: they are not copied into one buffer
 * first).
 */
async function writeAll(
  handle: fs.FileHandle,
  data: Uint8Array | readonly Uint8Array[],
  position = 0,
): Promise<void> {
  if (data instanceof Uint8Array) {
    await handle.writeFile(data);
    return;
  }
  const total = data.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  let written = 0;
  let chunks = data.filter((chunk) => chunk.byteLength > 0);
  // writev may write less than asked (a signal, a full disk answered later): go on from where it stopped.
  while (written < total) {
    const { bytesWritten } = await handle.writev(chunks as Uint8Array[], position + written);
    if (bytesWritten === 0) throw new Error('the file system accepted no more bytes');
    written += bytesWritten;
    chunks = rest(chunks, bytesWritten);
  }
}

/** What is left of `chunks` after their first `count` bytes. */
function rest(chunks: readonly Uint8Array[], count: number): Uint8Array[] {
  const left: Uint8Array[] = [];
  let skip = count;
  for (const chunk of chunks) {
    if (skip >= chunk.byteLength) skip -= chunk.byteLength;
    else {
      left.push(skip > 0 ? chunk.subarray(skip) : chunk);
      skip = 0;
    }
  }
  return left;
}

async function syncDirectory(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = fsSync.openSync(dir, 'r');
    await fsync(fd);
  } catch {
    // Some platforms/file systems (Windows, some network mounts) cannot fsync a directory; the rename
    // has still happened, it is just not forced to disk yet.
  } finally {
    try {
      if (fd !== undefined) fsSync.closeSync(fd);
    } catch {
      // Closing a read-only descriptor of a directory has nothing to lose; the write has happened.
    }
  }
}
