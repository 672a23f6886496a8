/**
 * Files SheetPort writes into the data dir hold secrets or data the user may not share (the database, the
 * secrets file, logs), so each is readable by the user only (0600) from the moment it exists, whatever the
 * umask and whatever mode an older version left behind. Folders SheetPort creates are 0700.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/**
 * Create the folder (and parents) 0700. A folder that already exists keeps its mode: it may be one the user
 * chose and shares; the files SheetPort puts in it are private on their own.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Create the file empty and 0600 if missing; tighten it to 0600 if it exists. An existing file is changed by
 * path, never opened: closing a descriptor of a file drops every POSIX lock this process holds on it, and a
 * SQLite connection already open on it in this process would lose its locks (another process could then delete
 * its WAL from under it).
 */
export function ensurePrivateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', PRIVATE_FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  fs.chmodSync(file, PRIVATE_FILE_MODE);
}

/** Tighten a file to 0600 if it exists (e.g. a `-wal` left by an older version). */
export function tightenIfPresent(file: string): void {
  try {
    fs.chmodSync(file, PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** A sibling temp file, 0600 from creation, holding `data`. */
function writeTemp(file: string, data: string): string {
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = fs.openSync(temp, 'wx', PRIVATE_FILE_MODE);
  try {
    fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return temp;
}

/** Replace the file's content atomically (temp file + rename): readers see the old or the new text, never half. */
export function writePrivateFileAtomic(file: string, data: string): void {
  const temp = writeTemp(file, data);
  try {
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Create the file with `data` only if it does not exist yet, atomically (temp file + hard link, which fails
 * when the name is taken). Returns false when another process created it first.
 */
export function createPrivateFileOnce(file: string, data: string): boolean {
  const temp = writeTemp(file, data);
  try {
    fs.linkSync(temp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}
