/**
 * A cross-process lock as an exclusively created file. Held only for the few milliseconds of a read-modify-write,
 * so waiting is a short synchronous sleep; a lock file older than STALE_MS is from a process that died holding
 * it and is taken over.
 */
import fs from 'node:fs';
import { AppError } from '../errors.ts';
import { PRIVATE_FILE_MODE } from '../lib/private-files.ts';

const WAIT_MS = 5000;
const STALE_MS = 30_000;
const SLEEP_MS = 5;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function withLockFile<T>(lockPath: string, fn: () => T): T {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lockPath, 'wx', PRIVATE_FILE_MODE));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (isStale(lockPath)) {
      fs.rmSync(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new AppError(
        'internal_error',
        `Timed out waiting for ${lockPath}; if no SheetPort is running, delete it.`,
      );
    }
    Atomics.wait(sleeper, 0, 0, SLEEP_MS);
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lockPath, { force: true });
  }
}

function isStale(lockPath: string): boolean {
  try {
    return Date.now() - fs.statSync(lockPath).mtimeMs > STALE_MS;
  } catch {
    return false; // released meanwhile: retry at once
  }
}
