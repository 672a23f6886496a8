/**
 * Replacing a file so that readers (Excel, a sync client, our own reader) see either the old bytes or the
 * new ones, never a half-written file, and a crash mid-write leaves the original intact: write a hidden
 * temp file in the same directory (same file system, so rename is atomic), fsync it, rename it over the
 * original, then fsync the directory so the rename itself is durable. A keeper (backups.ts) may keep the
 * version being replaced, just before the rename.
 *
 * Only the data calls (writing the bytes, the fsyncs) go through the thread pool; the metadata calls (stat,
 * chmod, rename, opening the directory) are synchronous: each takes microseconds on a local disk, where an
 * asynchronous one costs a round trip through the pool, and a write's latency is the sum of them all.
 */
import { randomBytes } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const fsync = promisify(fsSync.fsync);

/** Keeps the version a replace drops (backups.ts). */
export interface PreviousVersionKeeper {
  /**
   * Called once the new bytes are safely in the temp file, with the original still at its path. Throwing
   * aborts the replace (nothing changes). Resolves to what is called once the rename is done (true) or has
   * failed (false); that must not throw.
   */
  beforeReplace(filePath: string): Promise<(replaced: boolean) => Promise<void>>;
}

/** Temp files are `.<name>.sheetport-<random>.tmp`; watchers can ignore names matching this. */
export const TEMP_FILE_PATTERN = /^\..+\.sheetport-[0-9a-f]+\.tmp$/;

export function tempPathFor(filePath: string): string {
  return path.join(
    path.dirname(filePath),
    `.${path.basename(filePath)}.sheetport-${randomBytes(6).toString('hex')}.tmp`,
  );
}

export async function replaceFileAtomically(
  filePath: string,
  data: Uint8Array | readonly Uint8Array[],
  keeper?: PreviousVersionKeeper,
): Promise<void> {
  const original = fsSync.statSync(filePath);
  const mode = original.mode & 0o7777;
  const temp = tempPathFor(filePath);
  const handle = await fs.open(temp, 'wx', mode);
  let settle: ((replaced: boolean) => Promise<void>) | undefined;
  try {
    try {
      await writeAll(handle, data);
      fsSync.fchmodSync(handle.fd, mode); // open() applied the umask; the replacement keeps the original's mode
      try {
        fsSync.fchownSync(handle.fd, original.uid, original.gid);
      } catch {
        // only possible for root; best effort
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    settle = await keeper?.beforeReplace(filePath);
    fsSync.renameSync(temp, filePath);
  } catch (e) {
    await fs.rm(temp, { force: true }).catch(() => {});
    await settle?.(false);
    throw e;
  }
  await syncDirectory(path.dirname(filePath));
  await settle?.(true);
}

/** The chunks written one after another (a vectored write: they are not copied into one buffer first). */
async function writeAll(handle: fs.FileHandle, data: Uint8Array | readonly Uint8Array[]): Promise<void> {
  if (data instanceof Uint8Array) {
    await handle.writeFile(data);
    return;
  }
  const total = data.reduce((sum, chunk) => sum + chunk.byteLength, 0);
  let written = 0;
  let chunks = data.filter((chunk) => chunk.byteLength > 0);
  // writev may write less than asked (a signal, a full disk answered later): go on from where it stopped.
  while (written < total) {
    const { bytesWritten } = await handle.writev(chunks as Uint8Array[], written);
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
