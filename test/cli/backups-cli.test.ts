/**
 * `sheetport backups list|restore` as a child process, over versions kept by real writes to a workbook file.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveBackupPolicy } from '../../server/config.ts';
import type { Source } from '../../server/sources/source.ts';
import { createWorkbookSource } from '../../server/sources/workbook/index.ts';

const BIN = path.resolve('bin/sheetport.js');
const exec = promisify(execFile);
let dir: string;
let dataDir: string;
let file: string;
let source: Source;
/** The file's bytes before each write: what each backup should hold, oldest first. */
const states: Buffer[] = [];

async function cli(...args: string[]) {
  const { stdout } = await exec(process.execPath, [BIN, ...args, '--json', '--data-dir', dataDir]);
  return JSON.parse(stdout);
}
async function cliFails(...args: string[]) {
  try {
    await exec(process.execPath, [BIN, ...args, '--json', '--data-dir', dataDir]);
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, error: JSON.parse(e.stderr).error };
  }
  throw new Error('expected the command to fail');
}
const append = (order: string) =>
  source.write('1', [{ op: 'append', values: { Order: order, Qty: 1 } }], {
    allowFormulas: false,
    userEntered: false,
  });

beforeAll(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'sheetport-backups-cli-'));
  dataDir = path.join(dir, 'data');
  file = path.join(dir, 'orders.csv');
  await fsp.writeFile(file, 'Order,Qty\nA-1,2\n');
  source = createWorkbookSource(file, { backups: resolveBackupPolicy(dataDir, {}, {}) });
  for (const order of ['A-2', 'A-3']) {
    states.push(await fsp.readFile(file));
    await append(order);
  }
});
afterAll(async () => {
  await source.close();
  await fsp.rm(dir, { recursive: true, force: true });
});

describe('sheetport backups', () => {
  it('lists the kept versions newest first, for every file or one', async () => {
    const all = await cli('backups', 'list');
    expect(all).toHaveLength(2);
    expect(all[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}-\d{8}T\d{9}Z$/),
      path: file,
      backed_up_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      bytes: states[1]!.length,
      backup_file: expect.stringContaining(path.join(dataDir, 'backups')),
    });
    expect(Date.parse(all[0].backed_up_at)).toBeGreaterThan(Date.parse(all[1].backed_up_at));
    expect(all.map((b: { backup_file: string }) => fs.readFileSync(b.backup_file))).toEqual([
      states[1],
      states[0],
    ]);
    expect(await cli('backups', 'list', file)).toEqual(all);
    expect(await cli('backups', 'list', path.join(dir, 'other.csv'))).toEqual([]);

    const { stdout } = await exec(process.execPath, [BIN, 'backups', 'list', '--data-dir', dataDir]);
    expect(stdout).toMatch(/^ID\s+BACKED_UP_AT\s+SIZE\s+FILE\n/);
    expect(stdout).toContain(all[0].id);
  });

  it('refuses to restore without --yes when it cannot ask, and an unknown id', async () => {
    const [newest] = await cli('backups', 'list');
    const before = await fsp.readFile(file);
    expect(await cliFails('backups', 'restore', newest.id)).toMatchObject({
      code: 1,
      error: { code: 'usage', message: expect.stringMatching(/add --yes/) },
    });
    expect(
      await cliFails('backups', 'restore', '0123456789abcdef-20240101T000000000Z', '--yes'),
    ).toMatchObject({
      code: 1,
      error: { code: 'not_found' },
    });
    expect((await fsp.readFile(file)).equals(before)).toBe(true);
  });

  it('restores a version and keeps the one it replaced, so the restore can be undone', async () => {
    const before = await cli('backups', 'list');
    const oldest = before.at(-1);
    const current = await fsp.readFile(file);
    const out = await cli('backups', 'restore', oldest.id, '--yes');
    expect(out.restored).toMatchObject({ id: oldest.id, path: file });
    expect((await fsp.readFile(file)).equals(states[0]!)).toBe(true);

    const after = await cli('backups', 'list');
    expect(after).toHaveLength(3);
    expect(after[0]).toEqual(out.replaced);
    expect(fs.readFileSync(after[0].backup_file).equals(current)).toBe(true);
    expect(fs.statSync(after[0].backup_file).mode & 0o777).toBe(0o600);

    // undo
    await cli('backups', 'restore', out.replaced.id, '--yes');
    expect((await fsp.readFile(file)).equals(current)).toBe(true);
    // a write through the service afterwards sees the restored file (an outside edit) and builds on it
    await append('A-4');
    expect(await fsp.readFile(file, 'utf8')).toBe('Order,Qty\nA-1,2\nA-2,1\nA-3,1\nA-4,1\n');
  });

  it('creates the file again when it was deleted', async () => {
    const [newest] = await cli('backups', 'list');
    await fsp.rm(file);
    const { stdout } = await exec(process.execPath, [
      BIN,
      'backups',
      'restore',
      newest.id,
      '--yes',
      '--data-dir',
      dataDir,
    ]);
    expect(stdout).toContain(`Restored ${file}`);
    expect(stdout).toContain('created again');
    expect((await fsp.readFile(file)).equals(fs.readFileSync(newest.backup_file))).toBe(true);
  });
});
