/**
 * Replacing a file so that readers (Excel, a sync client, our own reader) see either the old bytes or the
 * new ones, never a half-written file, and a crash mid-write leaves the original intact: write a hidden
 * temp file in the same directory (same file system, so rename is atomic), fsync it, rename it over the
 * original, then fsync the directory so the rename itself is durable. A keeper (backups.ts) may keep the
 * version being replaced, just before the rename.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

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
  data: Uint8Array,
  keeper?: PreviousVersionKeeper,
): Promise<void> {
  const original = await fs.stat(filePath);
  const mode = original.mode & 0o7777;
  const temp = tempPathFor(filePath);
  const handle = await fs.open(temp, 'wx', mode);
  let settle: ((replaced: boolean) => Promise<void>) | undefined;
  try {
    try {
      await handle.writeFile(data);
      await handle.chmod(mode); // open() applied the umask; the replacement keeps the original's mode
      await handle.chown(original.uid, original.gid).catch(() => {}); // only possible for root; best effort
      await handle.sync();
    } finally {
      await handle.close();
    }
    settle = await keeper?.beforeReplace(filePath);
    await fs.rename(temp, filePath);
  } catch (e) {
    await fs.rm(temp, { force: true }).catch(() => {});
    await settle?.(false);
    throw e;
  }
  await syncDirectory(path.dirname(filePath));
  await settle?.(true);
}

async function syncDirectory(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Some platforms/file systems (Windows, some network mounts) cannot fsync a directory; the rename
    // has still happened, it is just not forced to disk yet.
  } finally {
    await handle?.close().catch(() => {});
  }
}
