/**
 * Refusing to write a workbook that another program holds. An office program that has the file open
 * keeps its own copy in memory and overwrites the file on its next save, silently throwing our write away;
 * answering 423 `locked` (nothing changed) is the only honest choice. On Linux/macOS the signal is the
 * owner-lock file the program puts beside the document; on Windows it is a sharing violation.
 */
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../../errors.ts';

/** LibreOffice: `.~lock.<name>#`; Excel: `~$<name>`. */
export function ownerLockFiles(filePath: string): { program: string; path: string }[] {
  const dir = path.dirname(filePath);
  const name = path.basename(filePath);
  return [
    { program: 'LibreOffice', path: path.join(dir, `.~lock.${name}#`) },
    { program: 'Excel', path: path.join(dir, `~$${name}`) },
  ];
}

function lockedError(name: string, by: string): AppError {
  // Only the file name in the message: it reaches API clients, absolute paths must not.
  return new AppError(
    'locked',
    `"${name}" is open in ${by}; close it there (or remove a stale lock file) and retry`,
  );
}

/** Synchronous like every metadata call on a write's path: microseconds, where a thread-pool round trip costs more. */
export async function assertNotLocked(filePath: string): Promise<void> {
  for (const lock of ownerLockFiles(filePath)) {
    let exists: boolean;
    try {
      exists = lstatSync(lock.path, { throwIfNoEntry: false }) !== undefined;
    } catch {
      exists = false; // not reachable (a folder without search permission): no lock we can see
    }
    if (exists) throw lockedError(path.basename(filePath), lock.program);
  }
}

/**
 * Error codes that mean "another program holds the file". Windows reports a file held open by Excel as
 * EBUSY, EPERM or EACCES (sharing violations); elsewhere EPERM/EACCES mean plain missing permissions, which
 * no amount of closing programs fixes, so only EBUSY counts there.
 */
export function lockCodes(platform: NodeJS.Platform = process.platform): ReadonlySet<string> {
  return new Set(platform === 'win32' ? ['EBUSY', 'EPERM', 'EACCES'] : ['EBUSY']);
}
const LOCK_CODES = lockCodes();

/**
 * File system errors -> AppError. Sharing violations become `locked`; missing permissions say so; a missing
 * file is `spreadsheet_not_found`. Messages name the file only, never its path.
 */
export function fileError(e: unknown, filePath: string): unknown {
  if (e instanceof AppError) return e;
  const code = (e as NodeJS.ErrnoException)?.code;
  const name = path.basename(filePath);
  if (code && LOCK_CODES.has(code)) return lockedError(name, 'another program');
  if (code === 'EACCES' || code === 'EPERM') {
    return new AppError(
      'upstream_error',
      `SheetPort is not allowed to access "${name}" or its folder: check the file's permissions.`,
    );
  }
  if (code === 'ENOENT') return new AppError('spreadsheet_not_found', `Workbook file "${name}" not found`);
  if (code) return new AppError('upstream_error', `Could not access "${name}": ${code}`);
  return e;
}
