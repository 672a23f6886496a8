/**
 * Which failures mean "the data dir has no room" (507 `insufficient_storage`, not a bug and not bad input), for
 * the error envelope and for a write whose change could not be recorded. store/storage-room.ts checks the room
 * before a write.
 */
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
