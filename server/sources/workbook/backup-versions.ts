/**
 * The layout of the backups folder and the rules over it, shared by the keeper (backups.ts) and by list/restore
 * (backup-restore.ts): a file's versions live in `<data dir>/backups/<file id>/<time>-<name>`, the file id being
 * the first 16 hex digits of the SHA-256 of the file's absolute path, with `source.json` in that folder naming the
 * file. Pruning (`versionsToDrop`, pure) keeps the newest `keep`, none backed up more than `maxAgeDays` ago, at
 * most `maxBytes` together, and never the version just made.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { BackupPolicy } from '../../config.ts';

/** In each file's folder: `{"path": "<the file's absolute path>"}`. */
export const SOURCE_FILE = 'source.json';

export const DAY_MS = 86_400_000;
/** A file's backup folder: its file id. */
export const FOLDER = /^[0-9a-f]{16}$/;
/** A version: `<stamp>-<file name>`, the stamp being the UTC time to the millisecond (`20240301T093000123Z`). */
export const VERSION = /^(\d{8}T\d{9}Z)-(.+)$/;

/** The name of a file's backup folder. */
export function fileIdOf(filePath: string): string {
  return createHash('sha256').update(path.resolve(filePath)).digest('hex').slice(0, 16);
}

/** `20240301T093000123Z`: sorts as the time does, and is a valid file name everywhere (no colons). */
export function stampOf(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:.]/g, '');
}

/** Epoch ms of a stamp; NaN when it is not one. */
export function timeOfStamp(stamp: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z$/.exec(stamp);
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!);
}

/** One kept version of a file, as pruning sees it. */
export interface KeptVersion {
  name: string;
  /** When it was backed up (epoch ms). */
  time: number;
  bytes: number;
}

export type PruneRules = Pick<BackupPolicy, 'keep' | 'maxAgeDays' | 'maxBytes'>;

/**
 * The versions of one file to drop, newest first: all but the newest `keep`; those backed up more than
 * `maxAgeDays` before `now`; then, oldest first, those that bring the rest over `maxBytes` together. 0 turns
 * each rule off. `protect` (the version just made) is never dropped, even when it alone is over `maxBytes`.
 */
export function versionsToDrop(
  versions: readonly KeptVersion[],
  rules: PruneRules,
  now: number,
  protect?: string,
): KeptVersion[] {
  const newestFirst = [...versions].sort(
    (a, b) => b.time - a.time || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0),
  );
  const drop = new Set<KeptVersion>();
  newestFirst.forEach((v, i) => {
    if (v.name === protect) return;
    if (rules.keep > 0 && i >= rules.keep) drop.add(v);
    else if (rules.maxAgeDays > 0 && now - v.time > rules.maxAgeDays * DAY_MS) drop.add(v);
  });
  if (rules.maxBytes > 0) {
    let total = newestFirst.reduce((sum, v) => (drop.has(v) ? sum : sum + v.bytes), 0);
    for (let i = newestFirst.length - 1; i >= 0 && total > rules.maxBytes; i--) {
      const v = newestFirst[i]!;
      if (drop.has(v) || v.name === protect) continue;
      drop.add(v);
      total -= v.bytes;
    }
  }
  return newestFirst.filter((v) => drop.has(v));
}

export const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | null)?.code;

/** The versions in one file's folder (none when it does not exist). */
export async function versionsIn(folder: string): Promise<KeptVersion[]> {
  let names: string[];
  try {
    names = await fs.readdir(folder);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return [];
    throw err;
  }
  const versions: KeptVersion[] = [];
  for (const name of names) {
    const m = VERSION.exec(name);
    const time = m ? timeOfStamp(m[1]!) : Number.NaN;
    if (Number.isNaN(time)) continue;
    const st = await fs.lstat(path.join(folder, name)).catch(() => null); // removed meanwhile: skip it
    if (st?.isFile()) versions.push({ name, time, bytes: st.size });
  }
  return versions;
}

/** The file a folder's versions belong to, from its `source.json`; null when missing or unreadable. */
export async function sourceOf(folder: string): Promise<string | null> {
  try {
    const { path: file } = JSON.parse(await fs.readFile(path.join(folder, SOURCE_FILE), 'utf8'));
    return typeof file === 'string' ? file : null;
  } catch {
    return null;
  }
}
