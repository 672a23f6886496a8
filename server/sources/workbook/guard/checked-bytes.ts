/**
 * A connected file's bytes as every read and write of it gets them: through the file guard (a regular file
 * within the size limit) and, for a zip package, the package check. A file that cannot be read is remembered
 * as such for the version refused (its stat signature) until the file changes: repeated requests get the same
 * answer at once instead of repeating the work.
 *
 * Always the version refused, never what the path holds by the time the refusal is handled: a save in place
 * (openpyxl's `save(path)` empties the file, then writes it) read half written is refused, and its end, a
 * moment later, must be read rather than answered with that refusal. While the save can still be under way the
 * refusal says so (../../save-under-way.ts), and reads are answered from the last version read whole.
 */
import type { FileLimits } from '../../../config.ts';
import { markSaveUnderWay } from '../../save-under-way.ts';
import { statSignature } from '../file-signature.ts';
import { type FileBytes, readRegularFile, signatureRefused } from './read-regular-file.ts';
import { reasonOf } from './unreadable.ts';
import { checkZipPackage } from './zip-package.ts';

/** How long after its last change a package cut short may still be a save under way (many clock ticks). */
const SAVE_UNDER_WAY_MS = 2000;

/** A package refused as cut short or not yet a zip, changed moments ago: a save in place still being written. */
function cutShortMomentsAgo(read: FileBytes, error: unknown): boolean {
  const reason = reasonOf(error);
  const sinceChange = Date.now() - read.modifiedMs;
  // A modification time ahead of the clock (another machine's share) counts as recent within the same bound.
  return (reason === 'corrupt' || reason === 'not_a_workbook') && Math.abs(sinceChange) < SAVE_UNDER_WAY_MS;
}

export class CheckedBytes {
  readonly #path: string;
  readonly #zipPackage: boolean;
  readonly #limits: FileLimits;
  /** Why the file at this signature cannot be read; answered again until the file changes. */
  #failure: { signature: string; error: unknown } | null = null;

  constructor(filePath: string, zipPackage: boolean, limits: FileLimits) {
    this.#path = filePath;
    this.#zipPackage = zipPackage;
    this.#limits = limits;
  }

  /** The refusal remembered for the file at `signature`, thrown again; nothing when there is none. */
  throwIfRefused(signature: string): void {
    if (this.#failure?.signature === signature) throw this.#failure.error;
  }

  /** The bytes at the path, refused early (and cheaply) when they cannot be a readable workbook. */
  async read(): Promise<FileBytes> {
    let read: FileBytes;
    try {
      read = await readRegularFile(this.#path, this.#limits.maxFileBytes, !this.#zipPackage);
    } catch (e) {
      this.refused(signatureRefused(e), e);
      throw e;
    }
    try {
      if (this.#zipPackage) checkZipPackage(read.bytes, this.#path, this.#limits);
    } catch (e) {
      this.refused(read.signature, e);
      if (cutShortMomentsAgo(read, e)) markSaveUnderWay(e, read.modifiedMs + SAVE_UNDER_WAY_MS);
      throw e;
    }
    return read;
  }

  /** The file at `signature` could not be read: remembered when that depends on its content alone. */
  refused(signature: string | null, error: unknown): void {
    if (signature !== null && reasonOf(error)) this.#failure = { signature, error };
  }

  /** The file at `signature` was read: nothing refused is remembered any more. */
  readable(): void {
    this.#failure = null;
  }

  /** Whether `error` was a refusal by `read` and the path holds another version by now (a save moved on). */
  async changedSince(error: unknown): Promise<boolean> {
    const failure = this.#failure;
    if (!failure || failure.error !== error) return false;
    return (await statSignature(this.#path).catch(() => null)) !== failure.signature;
  }
}
