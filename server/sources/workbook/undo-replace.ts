/**
 * Taking a write back when its change could not be recorded (the data dir is full): the version a replace drops
 * is kept as a hard link beside the file, under SheetPort's temp-file name (watchers ignore it, and a leftover
 * is swept like any temp file), until the Spreadsheet says the write stays. Undoing renames it back over the file,
 * only while the file is still exactly what the write left (atomic-file.ts's conditional swap).
 *
 * It costs one link and one unlink per write, no copy. Where no hard link can be made (a file system without
 * them) the write simply cannot be undone. An append made in place (csv-append.ts) is undone by cutting the file
 * back to its length before the append, under the same condition. Only the last replace of each file is held: a newer write lets go of
 * the older one.
 */
import fsSync from 'node:fs';
import { promisify } from 'node:util';
import type { WriteUndo } from '../source.ts';
import { ChangedMeanwhile, type PreviousVersionKeeper, swapIn, tempPathFor } from './atomic-file.ts';
import { signatureOf, statSignature } from './file-signature.ts';

const fdatasync = promisify(fsSync.fdatasync);

/** The way back from the last write: the replaced version's hard link, or the length an append in place grew. */
type Held =
  | {
      /** The previous version's hard link. */
      link: string;
      filePath: string;
      /** The signature the replace left: undoing is allowed only while the file still has it. */
      left: string;
    }
  | { appendedTo: number; filePath: string; left: string };

/**
 * The link goes in the background: it is often the replaced version's last name, and freeing a large file's
 * blocks would hold the service's thread for tens of ms. A link a crash leaves is swept as a temp file.
 */
const removeQuietly = (file: string) => void fsSync.promises.rm(file, { force: true }).catch(() => {});

export class LastReplaceUndo implements PreviousVersionKeeper {
  readonly #inner: PreviousVersionKeeper | null;
  #held: Held | null = null;

  /** `inner` (the backups) keeps its version first, so it sees the file with no extra link. */
  constructor(inner: PreviousVersionKeeper | null) {
    this.#inner = inner;
  }

  async beforeReplace(filePath: string): Promise<(replaced: boolean) => Promise<void>> {
    const settleInner = await this.#inner?.beforeReplace(filePath);
    let link: string | null = tempPathFor(filePath);
    try {
      fsSync.linkSync(filePath, link);
    } catch {
      link = null; // no hard links here: this write cannot be undone
    }
    return async (replaced) => {
      await settleInner?.(replaced);
      if (!link) return;
      const left = replaced ? await statSignature(filePath).catch(() => null) : null;
      if (left === null) {
        removeQuietly(link);
        return;
      }
      this.#letGo();
      this.#held = { link, filePath, left };
    };
  }

  /**
   * An append in place keeps no link (the inode is the file's, which it changes): the length before it is what
   * undoing truncates the file back to, only while the file is still exactly what the append left.
   */
  async beforeAppend(
    filePath: string,
    base: { ino: number; size: number },
  ): Promise<(left: string | null) => Promise<void>> {
    const settleInner = await this.#inner?.beforeAppend?.(filePath, base);
    return async (left) => {
      await settleInner?.(left);
      if (left === null) return;
      this.#letGo();
      this.#held = { appendedTo: base.size, filePath, left };
    };
  }

  /** The way back from the write that left the file at `version`, if that was the last write. */
  undoFor(version: string): WriteUndo | undefined {
    const held = this.#held;
    if (!held || held.left !== version) return undefined;
    return {
      revert: async () => {
        if (this.#held !== held) return false;
        this.#held = null;
        if ('appendedTo' in held) return truncateBack(held.filePath, held.appendedTo, held.left);
        try {
          // Only over what the write left: a save made since stays, even one landing this instant.
          swapIn(held.filePath, held.link, held.left);
          return true;
        } catch (err) {
          removeQuietly(held.link);
          if (err instanceof ChangedMeanwhile) return false;
          throw err;
        }
      },
      keep: () => {
        if (this.#held === held) this.#letGo();
      },
    };
  }

  #letGo(): void {
    if (this.#held && 'link' in this.#held) removeQuietly(this.#held.link);
    this.#held = null;
  }
}

/** The file cut back to `length`, only if it is still the version `left` (checked on the open descriptor). */
async function truncateBack(filePath: string, length: number, left: string): Promise<boolean> {
  let fd: number;
  try {
    fd = fsSync.openSync(filePath, fsSync.constants.O_WRONLY | fsSync.constants.O_NOFOLLOW);
  } catch {
    return false; // gone, or replaced by something we do not write through
  }
  try {
    if (signatureOf(fsSync.fstatSync(fd)) !== left) return false; // changed since: that stays
    fsSync.ftruncateSync(fd, length);
    await fdatasync(fd);
    return true;
  } finally {
    fsSync.closeSync(fd);
  }
}
