/**
 * Backups of local workbooks: before a write replaces a file, the version it replaces is kept as
 * `<data dir>/backups/<file id>/<time>-<name>`, the file id being the first 16 hex digits of the SHA-256 of the
 * file's absolute path, with `source.json` in that folder naming the file. `sheetport backups list|restore`
 * reads them back (backup-restore.ts); the folder's layout and the pruning rules are in backup-versions.ts.
 *
 * Keeping a version costs no copy where it can be avoided: the file is hard-linked into its folder just before
 * the rename that replaces it, so after the rename the old inode belongs to the backup alone. Where no link can
 * be made (another file system, a file system without hard links) the file is copied instead, and so is a file
 * that has other links already (they would share the backup's content and mode). Folders are created 0700 and
 * versions are 0600. After each backup the file's folder is pruned (`versionsToDrop`): the newest `keep`, none
 * backed up more than `maxAgeDays` ago, at most `maxBytes` together, and never the version just made.
 *
 * A write never fails for want of a backup: the service's keeper logs the failure and the write goes on. A
 * restore is stricter: it puts nothing back unless the version it replaces was kept.
 */
import { randomBytes } from 'node:crypto';
import fsSync, { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { BackupPolicy } from '../../config.ts';
import { AppError } from '../../errors.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, writePrivateFileAtomic } from '../../lib/private-files.ts';
import type { BackupEntry } from '../kind.ts';
import type { PreviousVersionKeeper } from './atomic-file.ts';
import {
  codeOf,
  DAY_MS,
  fileIdOf,
  type KeptVersion,
  SOURCE_FILE,
  sourceOf,
  stampOf,
  VERSION,
  versionsIn,
  versionsToDrop,
} from './backup-versions.ts';

/** A copy under way (`copyVersion`); one a crash left behind is swept by a later pruning. */
const PARTIAL = /^\..+\.partial$/;

type Log = (message: string, err?: unknown) => void;

/** Copy `from` to `to` (0600), through a hidden partial file so `to` never holds half a copy. */
async function copyVersion(from: string, to: string): Promise<void> {
  const partial = path.join(
    path.dirname(to),
    `.${path.basename(to)}.${randomBytes(4).toString('hex')}.partial`,
  );
  try {
    await fs.copyFile(from, partial, constants.COPYFILE_EXCL);
    await fs.chmod(partial, PRIVATE_FILE_MODE);
    const taken = await fs.lstat(to).then(
      () => true,
      () => false,
    );
    if (taken) throw Object.assign(new Error(`${to} exists`), { code: 'EEXIST' });
    await fs.rename(partial, to);
  } finally {
    await fs.rm(partial, { force: true }).catch(() => {});
  }
}

export interface KeeperOptions {
  /** Epoch-ms clock: the time a version is filed under, and the age pruning measures. */
  now?: () => number;
  log?: Log;
  /** A failure to keep the version aborts the replace (a restore) instead of being logged (a write). */
  strict?: boolean;
}

/** Every this many versions kept in a folder, pruning looks at the folder itself again (see BackupKeeper). */
const RESCAN_EVERY = 25;

/** What a keeper knows of one file's folder: its versions, and how many it kept since it last looked. */
interface KnownFolder {
  versions: KeptVersion[];
  keptSinceScan: number;
}

/**
 * Keeps, before each replace of a file, the version it replaces (handed to `replaceFileAtomically`).
 *
 * It sits on every write's path, so it remembers each folder's versions instead of listing and statting the
 * folder at every write: a write costs a link (or copy) and a chmod; what pruning drops is removed behind it. Every
 * RESCAN_EVERY versions, and after any failure, it reads the folder again, which also picks up versions another
 * process kept there and sweeps copies a crash left half-made.
 */
export class BackupKeeper implements PreviousVersionKeeper {
  readonly #policy: BackupPolicy;
  readonly #now: () => number;
  readonly #log: Log;
  readonly #strict: boolean;
  /** Folders this keeper made sure of (created, `source.json` naming their file) and the versions they hold. */
  readonly #folders = new Map<string, KnownFolder>();
  /** The last version this keeper kept (what a restore reports). */
  lastKept: BackupEntry | null = null;
  /** The removal of the versions pruning dropped, one after another (see `#prune`). */
  #dropping: Promise<void> = Promise.resolve();

  constructor(policy: BackupPolicy, options: KeeperOptions = {}) {
    this.#policy = policy;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? (() => {});
    this.#strict = options.strict === true;
  }

  async beforeReplace(filePath: string): Promise<(replaced: boolean) => Promise<void>> {
    const name = path.basename(filePath);
    let kept: { file: string; version: KeptVersion; folder: KnownFolder };
    try {
      kept = await this.#keep(path.resolve(filePath));
    } catch (err) {
      this.#folders.delete(path.join(this.#policy.dir, fileIdOf(filePath))); // look again next time
      const reason = err instanceof Error ? err.message : String(err);
      if (this.#strict)
        throw new AppError(
          'internal_error',
          `Could not back up the current ${name} into ${this.#policy.dir} (${reason}); nothing was changed.`,
        );
      this.#log(
        `Could not back up ${name} before a write replaced it; the write goes on without a backup`,
        err,
      );
      return async () => {};
    }
    return async (replaced) => {
      const folder = path.dirname(kept.file);
      try {
        if (!replaced) {
          await fs.rm(kept.file, { force: true }); // the file was not replaced: nothing to keep
          return;
        }
        // A link had the file's mode until now; after the rename the inode is the backup's alone.
        fsSync.chmodSync(kept.file, PRIVATE_FILE_MODE);
        const stamp = VERSION.exec(kept.version.name)![1]!;
        this.lastKept = {
          id: `${path.basename(folder)}-${stamp}`,
          path: path.resolve(filePath),
          file: kept.file,
          time: kept.version.time,
          bytes: kept.version.bytes,
        };
        kept.folder.versions.push(kept.version);
        await this.#prune(folder, kept.folder, kept.version.name);
      } catch (err) {
        this.#folders.delete(folder);
        this.#log(`Could not finish the backup of ${name} (${kept.file})`, err);
      }
    };
  }

  /** The versions pruning has dropped are gone from the disk (their removal runs behind the writes). */
  dropped(): Promise<void> {
    return this.#dropping;
  }

  async #remove(files: readonly string[]): Promise<void> {
    for (const file of files)
      await fs
        .rm(file, { force: true })
        .catch((err) => this.#log(`Could not remove the old backup ${file}`, err));
  }

  /** The folder of a file, created and named on first use, with the versions it holds. */
  async #folder(folder: string, filePath: string): Promise<KnownFolder> {
    const known = this.#folders.get(folder);
    if (known) return known;
    await fs.mkdir(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
    if ((await sourceOf(folder)) !== filePath) {
      writePrivateFileAtomic(
        path.join(folder, SOURCE_FILE),
        `${JSON.stringify({ path: filePath }, null, 2)}\n`,
      );
    }
    const fresh = { versions: await versionsIn(folder), keptSinceScan: 0 };
    this.#folders.set(folder, fresh);
    return fresh;
  }

  /** Links (or copies) the file into its folder under a name no other version has. */
  async #keep(filePath: string): Promise<{ file: string; version: KeptVersion; folder: KnownFolder }> {
    const folderPath = path.join(this.#policy.dir, fileIdOf(filePath));
    const folder = await this.#folder(folderPath, filePath);
    const name = path.basename(filePath);
    // Linked only when the path is the file itself (a link to a symlink would keep the symlink) and its only name.
    // Synchronous metadata calls on the write's path, as in atomic-file.ts.
    const st = fsSync.lstatSync(filePath);
    let link = st.isFile() && st.nlink === 1;
    // After the newest version already there, even if the clock was set back: the order of the stamps is the
    // order the versions were replaced in.
    const latest = folder.versions.reduce((max, v) => Math.max(max, v.time), Number.NEGATIVE_INFINITY);
    for (let ms = Math.max(this.#now(), latest + 1), taken = 0; ; ) {
      const versionName = `${stampOf(ms)}-${name}`;
      const target = path.join(folderPath, versionName);
      try {
        if (link) fsSync.linkSync(filePath, target);
        else await copyVersion(filePath, target);
        // The same inode (a link) or the same bytes (a copy): the size read above is the version's.
        return { file: target, version: { name: versionName, time: ms, bytes: st.size }, folder };
      } catch (err) {
        if (codeOf(err) === 'EEXIST') {
          if (++taken > 1000) throw err;
          ms++; // a version from the same millisecond (another process's): file this one a millisecond later
          continue;
        }
        if (!link) throw err;
        link = false; // another file system (EXDEV), no hard links there (EPERM, ENOTSUP, ...): copy
      }
    }
  }

  async #prune(folderPath: string, folder: KnownFolder, protect: string): Promise<void> {
    const now = this.#now();
    const rescan = ++folder.keptSinceScan >= RESCAN_EVERY;
    if (rescan) {
      await this.#dropping; // a version still being removed would count against the limits again
      folder.versions = await versionsIn(folderPath);
      folder.keptSinceScan = 0;
    }
    const drop = new Set(versionsToDrop(folder.versions, this.#policy, now, protect));
    folder.versions = folder.versions.filter((v) => !drop.has(v));
    // A dropped version is usually its file's last name, and freeing a large file's blocks takes tens of ms: off
    // the service's thread and off the write's answer. One that stays (a crash) is dropped at the next rescan.
    const files = [...drop].map((v) => path.join(folderPath, v.name));
    if (files.length > 0) this.#dropping = this.#dropping.then(() => this.#remove(files));
    if (!rescan) return;
    for (const name of await fs.readdir(folderPath)) {
      if (!PARTIAL.test(name)) continue;
      const file = path.join(folderPath, name);
      const st = await fs.lstat(file).catch(() => null);
      if (st && now - st.mtimeMs > DAY_MS) await fs.rm(file, { force: true }); // left by a crash mid-copy
    }
  }
}
