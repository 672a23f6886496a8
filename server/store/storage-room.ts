/**
 * Whether the data dir can take a recording: a write is answered only once its change is recorded, so a write the
 * data dir cannot record is refused before its source takes it (507 `insufficient_storage`).
 *
 * The check before a write is the free space of the data dir's file system (statfs) against a margin (config.ts's
 * minFreeBytes, SHEETPORT_MIN_FREE_MB; docs/api.md, "When the disk is full"): SQLite
 * needs room to grow its WAL, and a full file system fails a transaction only at its commit, too late to keep
 * the source untouched. A quota or a change bigger than the margin can still fail the recording after the check;
 * the replica then undoes the write where the source can (see replica.ts).
 */
import { statfsSync } from 'node:fs';
import { AppError } from '../errors.ts';

/**
 * SQLite's and the file system's ways of saying "no room": SQLITE_FULL, and the write errors a full disk causes
 * where SQLite cannot tell (a short write, no room to grow the shared-memory file).
 */
const SQLITE_STORAGE_CODES = /^SQLITE_(FULL|IOERR_WRITE|IOERR_SHMSIZE)$/;
const ERRNO_STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/** A failure that means the data dir could not store what it was given (not a bug, not bad input). */
export function isStorageFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return SQLITE_STORAGE_CODES.test(code) || ERRNO_STORAGE_CODES.has(code);
}

export function insufficientStorage(): AppError {
  return new AppError(
    'insufficient_storage',
    "SheetPort's data folder has no room to record this write, so nothing was written; free some disk space and retry.",
  );
}

/**
 * Throws 507 unless the data dir's file system has `minBytes` free for this process (statfs `bavail`: what an
 * unprivileged user may still use). A file system that cannot say (statfs fails) is let through: the recording
 * itself still decides.
 */
export function assertRoomToRecord(dataDir: string, minBytes: number): void {
  if (minBytes <= 0) return;
  let free: number;
  try {
    const st = statfsSync(dataDir);
    free = Number(st.bavail) * Number(st.bsize);
  } catch {
    return;
  }
  if (free < minBytes) throw insufficientStorage();
}
