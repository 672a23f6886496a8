/**
 * A connected file's bytes as every read and write of it gets them: through the file guard (a regular file
 * within the size limit) and, for a zip package, the package check. A file that cannot be read is remembered
 * as such for the version refused (its stat signature) until the file changes: repeated requests get the same
 * answer at once instead of repeating the work.
 *
 * Always the version refused, never what the path holds by the time the refusal is handled: a save in place
 * (openpyxl's `save(path)` empties the file, then writes it) read half written is refused, and its end, a
 * moment later, must be read rather than answered with that refusal. While a save over a version read whole can
 * still be under way the refusal says so (503, ../../save-under-way.ts), and reads are answered from that
 * version; a package left cut short past that, or never read whole, is damaged (502 `corrupt`).
 *
 * A .csv has no end to miss: read half written, it is rows. One changed in place moments ago that ends inside a
 * line, or whose last version's end moved and that does not hold still, is such a save (half-saved.ts): refused
 * as under way and not remembered, so once the save has been left alone the same bytes are read as they are.
 */
import type { FileLimits } from '../../../config.ts';
import { saveUnderWay } from '../../save-under-way.ts';
import { partsOfSignature, statSignature } from '../file-signature.ts';
import {
  changedMomentsAgo,
  packageCutShort,
  SAVE_QUIET_MS,
  SAVE_UNDER_WAY_MS,
  TextVersions,
} from './half-saved.ts';
import { type FileBytes, readRegularFile, signatureRefused } from './read-regular-file.ts';
import { reasonOf } from './unreadable.ts';
import { checkZipPackage } from './zip-package.ts';

export class CheckedBytes {
  readonly #path: string;
  readonly #zipPackage: boolean;
  readonly #limits: FileLimits;
  /**
   * Why the file at this signature cannot be read; answered again until the file changes. A package cut short
   * moments ago is first answered as a save under way (`saving`, `error` the first such answer), until that save
   * would have ended.
   */
  #failure: { signature: string; error: unknown; saving?: { error: unknown; untilMs: number } } | null = null;
  /** A text file's last version taken, to tell a save in place caught half way (half-saved.ts). */
  readonly #texts = new TextVersions();
  /**
   * A version of the file was read whole. Until then a package cut short cannot be told from a damaged file (a
   * save under way is a save over a version known), and is answered as one.
   */
  #readWhole = false;

  constructor(filePath: string, zipPackage: boolean, limits: FileLimits) {
    this.#path = filePath;
    this.#zipPackage = zipPackage;
    this.#limits = limits;
  }

  /** The refusal remembered for the file at `signature`, thrown again; nothing when there is none. */
  throwIfRefused(signature: string): void {
    const failure = this.#failure;
    if (failure?.signature !== signature) return;
    const saving = failure.saving;
    // Made anew, so its Retry-After says the time left of the save.
    throw saving && Date.now() < saving.untilMs ? saveUnderWay(this.#path, saving.untilMs) : failure.error;
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
    if (!this.#zipPackage) return this.#textRead(read);
    try {
      checkZipPackage(read.bytes, this.#path, this.#limits);
    } catch (e) {
      this.refused(read.signature, e);
      if (this.#readWhole && this.#failure && packageCutShort(read.bytes, e) && changedMomentsAgo(read)) {
        const untilMs = read.modifiedMs + SAVE_UNDER_WAY_MS;
        this.#failure.saving = { error: saveUnderWay(this.#path, untilMs), untilMs };
        throw this.#failure.saving.error;
      }
      throw e;
    }
    return read;
  }

  /** A text file's bytes, unless they are most likely a save in place caught half way (half-saved.ts). */
  async #textRead(read: FileBytes): Promise<FileBytes> {
    const verdict = this.#texts.verdict(read);
    if (verdict === 'under_way') throw this.#saveUnderWay(read);
    if (verdict === 'settle') {
      const quietIn = Math.min(SAVE_QUIET_MS, read.modifiedMs + SAVE_QUIET_MS - Date.now());
      if (quietIn > 0) await new Promise((resolve) => setTimeout(resolve, quietIn));
      if ((await statSignature(this.#path).catch(() => null)) !== read.signature)
        throw this.#saveUnderWay(read);
    }
    this.#texts.taken(read);
    return read;
  }

  /** The refusal of a text file read half written: not remembered, so left alone it is read as it is. */
  #saveUnderWay(read: FileBytes): unknown {
    return saveUnderWay(this.#path, read.modifiedMs + SAVE_UNDER_WAY_MS);
  }

  /** SheetPort wrote the file: now at `signature`, its content ending with `chunks`' bytes. */
  written(signature: string, chunks: readonly Uint8Array[]): void {
    if (this.#zipPackage) return;
    const { size, inode } = partsOfSignature(signature);
    this.#texts.written(inode, size, chunks);
  }

  /** The file at `signature` could not be read: remembered when that depends on its content alone. */
  refused(signature: string | null, error: unknown): void {
    if (signature !== null && reasonOf(error)) this.#failure = { signature, error };
  }

  /** The file at `signature` was read: nothing refused is remembered any more. */
  readable(): void {
    this.#readWhole = true;
    this.#failure = null;
  }

  /** Whether `error` was a refusal by `read` and the path holds another version by now (a save moved on). */
  async changedSince(error: unknown): Promise<boolean> {
    const failure = this.#failure;
    if (!failure || (failure.error !== error && failure.saving?.error !== error)) return false;
    return (await statSignature(this.#path).catch(() => null)) !== failure.signature;
  }
}
