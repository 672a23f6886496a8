/**
 * What an interrupted write leaves beside a workbook is cleaned up when the file is opened again, and the
 * conditional replace itself: a write never replaces a version it was not based on.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ChangedMeanwhile,
  replaceFileAtomically,
  TEMP_FILE_PATTERN,
} from '../../../server/sources/workbook/atomic-file.ts';
import { signatureOf } from '../../../server/sources/workbook/file-signature.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { removeLeftovers } from '../../../server/sources/workbook/leftovers.ts';
import { removeTempDirs, sha, tempDir, writeStyledWorkbook } from './helpers.ts';

afterAll(removeTempDirs);

const ours = (dir: string) => fs.readdirSync(dir).filter((n) => TEMP_FILE_PATTERN.test(n));

/** A pid no process has: one that ran and exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

describe('leftovers of an interrupted write', () => {
  it('a write killed (SIGKILL) mid-way leaves a temp file, and the next open of the workbook removes it', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'big.csv');
    fs.writeFileSync(file, 'a,b\n1,2\n');
    const before = await sha(file);
    // A real process writing a large replacement through the real code, killed while the temp file fills.
    const module = path.resolve(import.meta.dirname, '../../../server/sources/workbook/atomic-file.ts');
    const script = `
      const { replaceFileAtomically } = await import(${JSON.stringify(module)});
      const chunk = new Uint8Array(64 * 1024 * 1024).fill(65);
      await replaceFileAtomically(${JSON.stringify(file)}, Array.from({ length: 64 }, () => chunk));
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    const deadline = Date.now() + 20_000;
    while (ours(dir).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(ours(dir)).toHaveLength(1);
    expect(await sha(file)).toBe(before); // the workbook itself was never touched

    const source = createWorkbookSource(file);
    const snapshot = await source.read();
    expect(snapshot.tabs[0]!.typed).toEqual([[1, 2]]);
    expect(ours(dir)).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual(['big.csv']);
    await source.close();
  });

  it('puts back a workbook a crash left moved aside, removes temp files of dead processes and of older versions', async () => {
    const dir = await tempDir();
    const file = await writeStyledWorkbook(path.join(dir, 'book.xlsx'));
    const original = await sha(file);
    const dead = await deadPid();
    const aside = path.join(dir, `.book.xlsx.sheetport-${dead}-0a1b2c3d4e5f.prev`);
    fs.renameSync(file, aside); // the instant between moving the old version aside and linking the new one
    fs.writeFileSync(path.join(dir, `.book.xlsx.sheetport-${dead}-00aa11bb22cc.tmp`), 'partial');
    fs.writeFileSync(path.join(dir, '.book.xlsx.sheetport-00aa11bb22cc.tmp'), 'from an older version');
    // Not ours: another workbook's, and a file of the user's that only looks alike.
    fs.writeFileSync(path.join(dir, `.other.xlsx.sheetport-${dead}-00aa11bb22cc.tmp`), 'x');
    fs.writeFileSync(path.join(dir, '.book.xlsx.sheetport-notes.txt'), 'mine');

    expect(removeLeftovers(file)).toBe(3);
    expect(await sha(file)).toBe(original);
    expect(fs.readdirSync(dir).sort()).toEqual(
      [
        '.book.xlsx.sheetport-notes.txt',
        `.other.xlsx.sheetport-${dead}-00aa11bb22cc.tmp`,
        'book.xlsx',
      ].sort(),
    );
  });

  it('leaves alone a temp file another running process is writing, unless it is over an hour old', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.csv');
    fs.writeFileSync(file, 'x\n1\n');
    const live = path.join(dir, `.a.csv.sheetport-${process.ppid}-0123456789ab.tmp`);
    fs.writeFileSync(live, 'being written');
    expect(removeLeftovers(file)).toBe(0);
    expect(fs.existsSync(live)).toBe(true);
    expect(removeLeftovers(file, { now: () => Date.now() + 2 * 60 * 60 * 1000 })).toBe(1);
    expect(fs.existsSync(live)).toBe(false);
  });
});

describe('the conditional replace', () => {
  it('replaces the file when it is still the version the write was based on, and answers its new signature', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.csv');
    fs.writeFileSync(file, 'x\n1\n');
    const basedOn = signatureOf(fs.statSync(file));
    const written = await replaceFileAtomically(file, Buffer.from('x\n2\n'), { basedOn });
    expect(fs.readFileSync(file, 'utf8')).toBe('x\n2\n');
    expect(written).toBe(signatureOf(fs.statSync(file)));
    expect(fs.statSync(file).nlink).toBe(1);
    expect(ours(dir)).toEqual([]);
  });

  it('writes nothing when another program saved (renamed a file over it) since the version it was based on', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.csv');
    fs.writeFileSync(file, 'x\n1\n');
    const basedOn = signatureOf(fs.statSync(file));
    fs.writeFileSync(path.join(dir, 'save.tmp'), 'x\n1\n'); // same size and content, another file
    fs.renameSync(path.join(dir, 'save.tmp'), file);
    await expect(replaceFileAtomically(file, Buffer.from('x\n2\n'), { basedOn })).rejects.toBeInstanceOf(
      ChangedMeanwhile,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe('x\n1\n');
    expect(ours(dir)).toEqual([]);
  });

  it('writes nothing when the file was removed meanwhile', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'a.csv');
    fs.writeFileSync(file, 'x\n1\n');
    const basedOn = signatureOf(fs.statSync(file));
    fs.rmSync(file);
    await expect(replaceFileAtomically(file, Buffer.from('x\n2\n'), { basedOn })).rejects.toBeInstanceOf(
      ChangedMeanwhile,
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
