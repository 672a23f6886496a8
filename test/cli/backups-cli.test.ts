/**
 * `sheetport backups list|restore` as a child process, over versions kept by real writes to a workbook file.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveBackupPolicy } from '../../server/config.ts';
import type { Source } from '../../server/sources/source.ts';
import { createWorkbookSource } from '../../server/sources/workbook/index.ts';
import { type AnyJson, cliFails, cliJson, runCli, succeeded } from '../helpers/cli.ts';
import { writeOne } from '../helpers/source-write.ts';

let dir: string;
let dataDir: string;
let file: string;
let source: Source;
/** The file's bytes before each write: what each backup should hold, oldest first. */
const states: Buffer[] = [];

const cli = (...args: string[]) => cliJson<AnyJson>(args, { dataDir });
const append = (order: string) =>
  writeOne(source, '1', [{ op: 'append', values: { Order: order, Qty: 1 } }], {
    allowFormulas: false,
    userEntered: false,
  });

beforeAll(async () => {
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'sheetport-backups-cli-'));
  dataDir = path.join(dir, 'data');
  file = path.join(dir, 'orders.csv');
  // A blank line after the rows: each append rewrites the file, keeping a version (an append in place keeps none).
  await fsp.writeFile(file, 'Order,Qty\nA-1,2\n\n');
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

    const { stdout } = succeeded(['backups', 'list'], await runCli(['backups', 'list'], { dataDir }));
    expect(stdout).toMatch(/^ID\s+BACKED_UP_AT\s+SIZE\s+FILE\n/);
    expect(stdout).toContain(all[0].id);
  });

  it('refuses to restore without --yes when it cannot ask, and an unknown id', async () => {
    const [newest] = await cli('backups', 'list');
    const before = await fsp.readFile(file);
    // cliFails: exit 1 and one error envelope on stderr.
    expect(await cliFails(['backups', 'restore', newest.id], { dataDir })).toMatchObject({
      code: 'usage',
      message: expect.stringMatching(/add --yes/),
    });
    expect(
      await cliFails(['backups', 'restore', '0123456789abcdef-20240101T000000000Z', '--yes'], { dataDir }),
    ).toMatchObject({ code: 'not_found' });
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
    expect(await fsp.readFile(file, 'utf8')).toBe('Order,Qty\nA-1,2\nA-2,1\nA-3,1\nA-4,1\n\n');
  });

  it('creates the file again when it was deleted', async () => {
    const [newest] = await cli('backups', 'list');
    await fsp.rm(file);
    const restore = ['backups', 'restore', newest.id, '--yes'];
    const { stdout } = succeeded(restore, await runCli(restore, { dataDir }));
    expect(stdout).toContain(`Restored ${file}`);
    expect(stdout).toContain('created again');
    expect((await fsp.readFile(file)).equals(fs.readFileSync(newest.backup_file))).toBe(true);
  });
});
