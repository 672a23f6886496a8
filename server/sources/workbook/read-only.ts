/**
 * A workbook file its owner made read-only is a "do not touch": SheetPort could still replace it (a rename needs
 * only the folder's permission), but never does. Writes are refused with 502 `upstream_error`, reason
 * `read_only`, before anything is written; reads go on.
 *
 * Read-only means: no write permission bit at all (what `chmod a-w` leaves, and what Windows' read-only attribute
 * looks like in Node), or not writable by this process (`access(W_OK)`: another user's file, a read-only mount).
 * The mode is checked on its own because `access` grants root everything.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../../errors.ts';

const NO_WRITE_CODES = new Set(['EACCES', 'EPERM', 'EROFS']);

/** Whether the file at `filePath` is read-only for SheetPort; false when it cannot be seen (a write says why). */
export function isReadOnlyFile(filePath: string): boolean {
  let mode: number;
  try {
    mode = statSync(filePath).mode;
  } catch {
    return false;
  }
  if ((mode & 0o222) === 0) return true;
  try {
    accessSync(filePath, constants.W_OK);
  } catch (e) {
    return NO_WRITE_CODES.has((e as NodeJS.ErrnoException).code ?? '');
  }
  return false;
}

/** Synchronous like every metadata call on a write's path (see lock.ts). */
export function assertNotReadOnly(filePath: string): void {
  if (!isReadOnlyFile(filePath)) return;
  // Only the file name in the message: it reaches API clients, absolute paths must not.
  throw new AppError(
    'upstream_error',
    `"${path.basename(filePath)}" is read-only (it has no write permission for SheetPort), so SheetPort does not write it; make it writable to allow writes.`,
    { reason: 'read_only' },
  );
}
