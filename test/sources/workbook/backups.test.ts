/**
 * Backups of local workbooks, below the HTTP layer: the pruning rule on its own (count, age, size, the version
 * just made), the settings from the environment, and the keeper around a real atomic replace.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKUP_ENV, DEFAULT_BACKUP_POLICY, resolveBackupPolicy } from '../../../server/config.ts';
import { replaceFileAtomically } from '../../../server/sources/workbook/atomic-file.ts';
import { listBackups } from '../../../server/sources/workbook/backup-restore.ts';
import {
  fileIdOf,
  type KeptVersion,
  SOURCE_FILE,
  stampOf,
  timeOfStamp,
  versionsToDrop,
} from '../../../server/sources/workbook/backup-versions.ts';
import { BackupKeeper } from '../../../server/sources/workbook/backups.ts';

const DAY = 86_400_000;
const NOW = Date.UTC(2024, 2, 1, 12, 0, 0);
const OFF = { keep: 0, maxAgeDays: 0, maxBytes: 0 };

/** `n` versions one hour apart, the newest `v0` at NOW. */
function versions(n: number, bytes = 10): KeptVersion[] {
  return Array.from({ length: n }, (_, i) => ({ name: `v${i}`, time: NOW - i * 3_600_000, bytes }));
}
const names = (vs: KeptVersion[]) => vs.map((v) => v.name);

describe('versionsToDrop', () => {
  it('keeps the newest `keep` and drops the rest, whatever order they come in', () => {
    const all = versions(12).reverse();
    expect(names(versionsToDrop(all, { ...OFF, keep: 10 }, NOW))).toEqual(['v10', 'v11']);
    expect(versionsToDrop(versions(10), { ...OFF, keep: 10 }, NOW)).toEqual([]);
  });

  it('drops versions older than maxAgeDays, even within `keep`', () => {
    const all: KeptVersion[] = [
      { name: 'new', time: NOW - 1 * DAY, bytes: 1 },
      { name: 'month', time: NOW - 30 * DAY, bytes: 1 },
      { name: 'old', time: NOW - 31 * DAY, bytes: 1 },
    ];
    expect(names(versionsToDrop(all, { ...OFF, keep: 10, maxAgeDays: 30 }, NOW))).toEqual(['old']);
    expect(versionsToDrop(all, { ...OFF, keep: 10 }, NOW)).toEqual([]); // 0: no age limit
  });

  it('drops the oldest while the versions together are over maxBytes', () => {
    const all = versions(5, 100); // 500 bytes
    expect(names(versionsToDrop(all, { ...OFF, maxBytes: 300 }, NOW))).toEqual(['v3', 'v4']);
    expect(names(versionsToDrop(all, { ...OFF, maxBytes: 299 }, NOW))).toEqual(['v2', 'v3', 'v4']);
    // the count rule goes first: what it drops no longer counts toward the size
    expect(names(versionsToDrop(all, { ...OFF, keep: 3, maxBytes: 250 }, NOW))).toEqual(['v2', 'v3', 'v4']);
  });

  it('never drops the version just made, even alone over every limit', () => {
    const all: KeptVersion[] = [
      { name: 'just-made', time: NOW - 40 * DAY, bytes: 1000 }, // a clock set back, a huge file
      ...versions(3, 10),
    ];
    const rules = { keep: 1, maxAgeDays: 30, maxBytes: 100 };
    expect(names(versionsToDrop(all, rules, NOW, 'just-made'))).toEqual(['v0', 'v1', 'v2']);
  });

  it('keeps everything with every rule off', () => {
    expect(versionsToDrop(versions(50, 1e9), OFF, NOW)).toEqual([]);
  });
});

describe('stamps and settings', () => {
  it('stamps sort as time does and read back to the millisecond', () => {
    const ms = Date.UTC(2024, 0, 2, 3, 4, 5, 67);
    expect(stampOf(ms)).toBe('20240102T030405067Z');
    expect(timeOfStamp(stampOf(ms))).toBe(ms);
    expect(Number.isNaN(timeOfStamp('2024-01-02'))).toBe(true);
  });

  it('defaults to 10 versions, 30 days and 1 GiB under <data dir>/backups; the environment overrides, 0 included', () => {
    expect(resolveBackupPolicy('/data', {}, {})).toEqual({
      dir: path.join('/data', 'backups'),
      ...DEFAULT_BACKUP_POLICY,
    });
    expect(DEFAULT_BACKUP_POLICY).toEqual({ keep: 10, maxAgeDays: 30, maxBytes: 1024 ** 3 });
    const env = { [BACKUP_ENV.keep]: '0', [BACKUP_ENV.maxAgeDays]: '7', [BACKUP_ENV.maxBytes]: '2' };
    expect(resolveBackupPolicy('/data', {}, env)).toMatchObject({
      keep: 0,
      maxAgeDays: 7,
      maxBytes: 2 * 1024 ** 2,
    });
    // not a number, negative or empty: the default
    const bad = { [BACKUP_ENV.keep]: 'lots', [BACKUP_ENV.maxAgeDays]: '-1', [BACKUP_ENV.maxBytes]: ' ' };
    expect(resolveBackupPolicy('/data', {}, bad)).toMatchObject(DEFAULT_BACKUP_POLICY);
    expect(resolveBackupPolicy('/data', { keep: 3 }, env).keep).toBe(3);
  });
});

describe('BackupKeeper around a replace', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => fsp.rm(d, { recursive: true, force: true }))));
  async function setup() {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'sheetport-backups-unit-'));
    dirs.push(dir);
    const file = path.join(dir, 'orders.csv');
    await fsp.writeFile(file, 'a,b\n1,2\n');
    await fsp.chmod(file, 0o644);
    return { dir, file, policy: resolveBackupPolicy(path.join(dir, 'data'), {}, {}) };
  }

  it('links the replaced version (no copy), makes it 0600, and leaves the file its own mode', async () => {
    const { file, policy } = await setup();
    const inode = fs.statSync(file).ino;
    await replaceFileAtomically(file, Buffer.from('a,b\n3,4\n'), { keeper: new BackupKeeper(policy) });
    const [kept] = await listBackups(policy);
    expect(kept).toMatchObject({ path: file, bytes: 8 });
    expect(fs.readFileSync(kept!.file, 'utf8')).toBe('a,b\n1,2\n');
    expect(fs.statSync(kept!.file).ino).toBe(inode); // the old inode itself
    expect(fs.statSync(kept!.file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(file).mode & 0o777).toBe(0o644);
    const folder = path.join(policy.dir, fileIdOf(file));
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
    expect(fs.statSync(policy.dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(fs.readFileSync(path.join(folder, SOURCE_FILE), 'utf8'))).toEqual({ path: file });
    expect(fs.statSync(path.join(folder, SOURCE_FILE)).mode & 0o777).toBe(0o600);
  });

  it('writes content given as chunks in order, more chunks than one vectored write takes, empty ones too', async () => {
    const { file } = await setup();
    // 3,000 chunks (a vectored write takes at most 1,024) of varied sizes, some empty.
    const chunks = Array.from({ length: 3000 }, (_, i) =>
      Buffer.alloc(i % 7 === 0 ? 0 : (i % 13) + 1, i % 251),
    );
    await replaceFileAtomically(file, chunks);
    expect(fs.readFileSync(file).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('copies a file that has another name (a link would share its content and mode)', async () => {
    const { dir, file, policy } = await setup();
    fs.linkSync(file, path.join(dir, 'other-name.csv'));
    await replaceFileAtomically(file, Buffer.from('new\n'), { keeper: new BackupKeeper(policy) });
    const [kept] = await listBackups(policy);
    expect(fs.readFileSync(kept!.file, 'utf8')).toBe('a,b\n1,2\n');
    expect(fs.statSync(kept!.file).ino).not.toBe(fs.statSync(path.join(dir, 'other-name.csv')).ino);
    expect(fs.statSync(path.join(dir, 'other-name.csv')).mode & 0o777).toBe(0o644);
  });

  it('files versions made in the same millisecond apart, and prunes to `keep`', async () => {
    const { file, policy } = await setup();
    const keeper = new BackupKeeper({ ...policy, keep: 3 }, { now: () => NOW });
    for (let i = 0; i < 5; i++) await replaceFileAtomically(file, Buffer.from(`v${i + 1}\n`), { keeper });
    await keeper.dropped(); // removed behind the writes
    const kept = await listBackups(policy);
    expect(kept.map((b) => fs.readFileSync(b.file, 'utf8'))).toEqual(['v4\n', 'v3\n', 'v2\n']);
    expect(kept.map((b) => b.time)).toEqual([NOW + 4, NOW + 3, NOW + 2]);
  });

  it('drops its version when the rename fails, and a strict keeper that cannot keep one stops the replace', async () => {
    const { dir, file, policy } = await setup();
    // the rename fails: the target's folder is gone by then
    const gone = path.join(dir, 'sub', 'x.csv');
    fs.mkdirSync(path.dirname(gone));
    fs.writeFileSync(gone, 'x\n');
    const keeper = new BackupKeeper(policy);
    const failing = {
      async beforeReplace(p: string) {
        const settle = await keeper.beforeReplace(p);
        fs.rmSync(path.dirname(gone), { recursive: true });
        return settle;
      },
    };
    await expect(replaceFileAtomically(gone, Buffer.from('y\n'), { keeper: failing })).rejects.toThrow();
    expect(await listBackups(policy)).toEqual([]);

    fs.writeFileSync(path.join(dir, 'data', 'blocker'), '');
    const blocked = { ...policy, dir: path.join(dir, 'data', 'blocker', 'backups') }; // under a file: ENOTDIR
    const strict = new BackupKeeper(blocked, { strict: true });
    await expect(replaceFileAtomically(file, Buffer.from('z\n'), { keeper: strict })).rejects.toThrow(
      /nothing was changed/,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('a,b\n1,2\n');
    const logged: string[] = [];
    const lenient = new BackupKeeper(blocked, { log: (m) => logged.push(m) });
    await replaceFileAtomically(file, Buffer.from('z\n'), { keeper: lenient });
    expect(fs.readFileSync(file, 'utf8')).toBe('z\n');
    expect(logged).toEqual([expect.stringMatching(/Could not back up orders\.csv/)]);
  });
});
