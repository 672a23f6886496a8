/**
 * `sheetport backups list|restore` over the backups folder (layout in backup-versions.ts): every kept version,
 * newest first, and the return of one to its file's path. A restore is stricter than a write: it puts nothing back
 * unless the version it replaces was kept (a strict BackupKeeper).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { BackupPolicy } from '../../config.ts';
import { AppError } from '../../errors.ts';
import type { BackupEntry, KindBackups, RestoreOutcome } from '../kind.ts';
import { ChangedMeanwhile, replaceFileAtomically, tempPathFor } from './atomic-file.ts';
import { codeOf, FOLDER, fileIdOf, SOURCE_FILE, sourceOf, VERSION, versionsIn } from './backup-versions.ts';
import { BackupKeeper, type KeeperOptions } from './backups.ts';
import { signatureOf } from './file-signature.ts';
import { assertNotLocked } from './lock.ts';

/** A backup's id: `<file id>-<stamp>`. */
const ID = /^([0-9a-f]{16})-(\d{8}T\d{9}Z)$/;

/** Every kept version, newest first; only those of `files` when given. */
export async function listBackups(policy: BackupPolicy, files?: readonly string[]): Promise<BackupEntry[]> {
  let folders: string[];
  try {
    folders = (await fs.readdir(policy.dir)).filter((n) => FOLDER.test(n));
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return [];
    throw err;
  }
  const wanted = files?.map((f) => path.resolve(f));
  const wantedIds = wanted?.map(fileIdOf);
  const entries: BackupEntry[] = [];
  for (const id of folders) {
    const folder = path.join(policy.dir, id);
    const source = await sourceOf(folder);
    if (wanted && !wantedIds?.includes(id) && !(source !== null && wanted.includes(source))) continue;
    for (const v of await versionsIn(folder)) {
      const stamp = VERSION.exec(v.name)![1]!;
      entries.push({
        id: `${id}-${stamp}`,
        path: source,
        file: path.join(folder, v.name),
        time: v.time,
        bytes: v.bytes,
      });
    }
  }
  return entries.sort((a, b) => b.time - a.time || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/**
 * Put the version `id` back at its file's path, atomically, after keeping the current version (so the restore
 * can be undone). A file that no longer exists is created again.
 */
export async function restoreBackup(
  policy: BackupPolicy,
  id: string,
  options: Omit<KeeperOptions, 'strict'> = {},
): Promise<RestoreOutcome> {
  const m = ID.exec(id);
  const folder = m ? path.join(policy.dir, m[1]!) : null;
  const version = folder ? (await versionsIn(folder)).find((v) => v.name.startsWith(`${m![2]}-`)) : undefined;
  if (!folder || !version)
    throw new AppError(
      'not_found',
      `No backup with id '${id}' in ${policy.dir}; see: sheetport backups list`,
    );
  const target = await sourceOf(folder);
  if (!target)
    throw new AppError(
      'not_found',
      `Backup ${id} does not say which file it is a version of (${path.join(folder, SOURCE_FILE)} is missing).`,
    );
  const restored: BackupEntry = {
    id,
    path: target,
    file: path.join(folder, version.name),
    time: version.time,
    bytes: version.bytes,
  };
  await assertNotLocked(target);
  const bytes = await fs.readFile(restored.file);
  const current = await fs.stat(target).catch((err) => {
    if (codeOf(err) === 'ENOENT') return null;
    throw err;
  });
  if (!current) {
    await createFile(target, bytes);
    return { restored, replaced: null };
  }
  const keeper = new BackupKeeper(policy, { ...options, strict: true });
  try {
    // Replaced only if it is still the version just kept: a save landing meanwhile is not lost.
    await replaceFileAtomically(target, bytes, { keeper, basedOn: signatureOf(current) });
  } catch (err) {
    if (!(err instanceof ChangedMeanwhile)) throw err;
    throw new AppError(
      'conflict',
      `${path.basename(target)} was saved by another program meanwhile; try again`,
    );
  }
  return { restored, replaced: keeper.lastKept };
}

/** A file deleted since its backup: written whole to a temp file beside it, then renamed into place. */
async function createFile(filePath: string, bytes: Uint8Array): Promise<void> {
  const temp = tempPathFor(filePath);
  try {
    const handle = await fs.open(temp, 'wx');
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, filePath);
  } finally {
    await fs.rm(temp, { force: true }).catch(() => {});
  }
}

/** What the workbook kind offers `sheetport backups`. */
export const workbookBackups: KindBackups = {
  list: listBackups,
  restore: (policy, id, log) => restoreBackup(policy, id, log ? { log } : {}),
};
