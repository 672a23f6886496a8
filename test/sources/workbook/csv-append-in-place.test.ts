/**
 * An append to a .csv goes in place (its lines added at the end; the file keeps its inode) only when that gives
 * exactly the file a full rewrite would, and under the same conditions as a rewrite: based on the version read,
 * never changing a kept version, undoable. The rewrite a test compares with is the real one: a file with a second
 * hard link is never appended to in place (the link would change with it), so its twin gets the rewrite.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedRows } from '../../../server/lib/shared-rows.ts';
import type { SourceOptions } from '../../../server/sources/kind.ts';
import type { Mutation } from '../../../server/sources/source.ts';
import { createWorkbookSource } from '../../../server/sources/workbook/index.ts';
import { writeOne } from '../../helpers/source-write.ts';
import { PLAIN, removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

const inode = async (file: string) => (await fs.stat(file)).ino;

async function csvFile(content: string | Buffer, options: SourceOptions = {}, name = 'data.csv') {
  const dir = await tempDir();
  const file = path.join(dir, name);
  await fs.writeFile(file, content);
  return { dir, file, source: createWorkbookSource(file, options) };
}

/** The tabs a fresh read of the same bytes gives (another path: nothing cached is shared). */
async function freshTabs(file: string) {
  const copy = path.join(await tempDir(), path.basename(file));
  await fs.copyFile(file, copy);
  return (await createWorkbookSource(copy).read()).tabs;
}

const APPENDS: Mutation[][] = [
  [{ op: 'append', values: { a: 1, b: 'plain' } }],
  [{ op: 'append', values: { a: 'needs, "quotes"', b: 'two\nlines' } }],
  [
    { op: 'append', values: { a: true, b: null } },
    { op: 'append', values: { b: 2.5 } },
  ],
];

describe('an append to a .csv in place', () => {
  const files: [string, string][] = [
    ['CRLF with a BOM', '\uFEFFa,b\r\n1,x\r\n2,"y, z"\r\n'],
    ['LF and semicolons', 'a;b\n1;x\n'],
    ['no final newline', 'a,b\r\n1,x'],
    ['tabs, upper-case booleans', 'a\tb\nTRUE\t1.50\n'],
    ['a header only', 'a,b\n'],
  ];
  for (const [what, content] of files) {
    it(`writes what a rewrite writes (${what}), keeping the file's inode`, async () => {
      const inPlace = await csvFile(content);
      const rewritten = await csvFile(content);
      await fs.link(rewritten.file, path.join(rewritten.dir, 'other-name.csv'));
      const before = await inode(inPlace.file);
      const rewrittenBefore = await inode(rewritten.file);
      for (const mutations of APPENDS) {
        const a = await writeOne(inPlace.source, '1', mutations, PLAIN);
        const b = await writeOne(rewritten.source, '1', mutations, PLAIN);
        expect(await fs.readFile(inPlace.file)).toEqual(await fs.readFile(rewritten.file));
        expect(a.snapshot.tabs).toEqual(b.snapshot.tabs);
        // The snapshot is the file's: what a fresh read of it gives.
        expect(a.snapshot.tabs).toEqual(await freshTabs(inPlace.file));
        expect(a.snapshot.version).toBe(await inPlace.source.version());
      }
      expect(await inode(inPlace.file)).toBe(before);
      expect(await inode(rewritten.file)).not.toBe(rewrittenBefore);
    });
  }

  it('is a rewrite while blank lines follow the rows (the row goes before them), in place once they are gone', async () => {
    const { file, source } = await csvFile('a,b\n1,2\n\n\n');
    const before = await inode(file);
    const result = await writeOne(source, '1', [{ op: 'append', values: { a: 3, b: 4 } }], PLAIN);
    expect(await fs.readFile(file, 'utf8')).toBe('a,b\n1,2\n3,4\n\n\n');
    expect(result.snapshot.tabs[0]?.typed).toEqual([
      [1, 2],
      [3, 4],
    ]);
    const rewritten = await inode(file);
    expect(rewritten).not.toBe(before);
    // Another program saves in place without the blank lines: the next append goes in place.
    await fs.writeFile(file, 'a,b\n1,2\n3,4\n');
    await writeOne(source, '1', [{ op: 'append', values: { a: 5, b: 6 } }], PLAIN);
    expect(await fs.readFile(file, 'utf8')).toBe('a,b\n1,2\n3,4\n5,6\n');
    expect(await inode(file)).toBe(rewritten);
  });

  it('follows another program that replaced the file meanwhile, and leaves the old file as it was', async () => {
    let saved = false;
    const kept = { path: '' };
    const { dir, file, source } = await csvFile('a,b\n1,x\n', {
      // Inside the write, its descriptor open on the file: another program saves by rename (its old file stays
      // under another name, as an editor's backup would).
      beforeFileReplace: async (target) => {
        if (saved) return;
        saved = true;
        kept.path = path.join(dir, 'data.csv.bak');
        await fs.link(target, kept.path);
        const next = path.join(dir, 'next.csv');
        await fs.writeFile(next, 'a,b\n1,x\n2,outside\n');
        await fs.rename(next, target);
      },
    });
    await source.read();
    const result = await writeOne(source, '1', [{ op: 'append', values: { a: 3, b: 'ours' } }], PLAIN);
    expect(await fs.readFile(file, 'utf8')).toBe('a,b\n1,x\n2,outside\n3,ours\n');
    expect(await fs.readFile(kept.path, 'utf8')).toBe('a,b\n1,x\n');
    expect(result.before?.tabs[0]?.typed).toEqual([
      [1, 'x'],
      [2, 'outside'],
    ]);
    expect(result.snapshot.tabs[0]?.typed).toEqual([
      [1, 'x'],
      [2, 'outside'],
      [3, 'ours'],
    ]);
    // The outside file took the line in place.
    const outsideInode = await inode(file);
    await writeOne(source, '1', [{ op: 'append', values: { a: 4 } }], PLAIN);
    expect(await inode(file)).toBe(outsideInode);
  });

  it('never changes a kept version: backups and the undo link stay as they were', async () => {
    const dir = await tempDir();
    const backups = { dir: path.join(dir, 'backups'), keep: 10, maxAgeDays: 0, maxBytes: 0 };
    const { file, source } = await csvFile('a,b\n1,x\n', { backups });
    // A rewrite keeps the version it replaces (a hard link of it in the backups).
    await writeOne(source, '1', [{ op: 'update', row: 1, values: { b: 'y' } }], PLAIN);
    const afterUpdate = await inode(file);
    for (let i = 0; i < 3; i++) {
      const result = await writeOne(source, '1', [{ op: 'append', values: { a: i } }], {
        ...PLAIN,
        undoable: true,
      });
      result.undo?.keep();
    }
    expect(await inode(file)).toBe(afterUpdate);
    expect(await fs.readFile(file, 'utf8')).toBe('a,b\n1,y\n0,\n1,\n2,\n');
    const folders = await fs.readdir(backups.dir);
    const folder = path.join(backups.dir, folders[0]!);
    const versions = (await fs.readdir(folder)).filter((name) => name !== 'source.json');
    expect(versions).toHaveLength(1);
    expect(await fs.readFile(path.join(folder, versions[0]!), 'utf8')).toBe('a,b\n1,x\n');
  });

  it('is undone by cutting the file back, only while the file is what the append left', async () => {
    const original = 'a,b\r\n1,x\r\n';
    const { file, source } = await csvFile(original);
    const before = await inode(file);
    const first = await writeOne(source, '1', [{ op: 'append', values: { a: 2 } }], {
      ...PLAIN,
      undoable: true,
    });
    expect(await fs.readFile(file, 'utf8')).toBe(`${original}2,\r\n`);
    expect(await inode(file)).toBe(before);
    expect(await first.undo?.revert()).toBe(true);
    expect(await fs.readFile(file, 'utf8')).toBe(original);
    expect(await inode(file)).toBe(before);
    expect((await source.read()).tabs[0]?.typed).toEqual([[1, 'x']]);

    const second = await writeOne(source, '1', [{ op: 'append', values: { a: 3 } }], {
      ...PLAIN,
      undoable: true,
    });
    await fs.appendFile(file, '4,outside\r\n'); // saved since by another program: it stays
    expect(await second.undo?.revert()).toBe(false);
    expect(await fs.readFile(file, 'utf8')).toBe(`${original}3,\r\n4,outside\r\n`);
  });

  it("says which of its new rows are the old version's, so the change's diff starts past them", async () => {
    const { source } = await csvFile('a,b\n1,x\n2,y\n3,z\n');
    const old = (await source.read()).tabs[0]!.typed;
    const result = await writeOne(source, '1', [{ op: 'append', values: { a: 4 } }], PLAIN);
    const next = result.snapshot.tabs[0]!.typed;
    expect(next).toEqual([...old, [4, null]]);
    expect(sharedRows(old, next)).toEqual({ head: 3, tail: 0 });
    for (let i = 0; i < 3; i++) expect(next[i]).toBe(old[i]);
    // An update keeps the rows above and below it; a delete is compared in full.
    const updated = await writeOne(source, '1', [{ op: 'update', row: 2, values: { b: 'w' } }], PLAIN);
    const after = updated.snapshot.tabs[0]!.typed;
    expect(after[1]).toEqual([2, 'w']);
    expect(sharedRows(next, after)).toEqual({ head: 1, tail: 2 });
    for (const i of [0, 2, 3]) expect(after[i]).toBe(next[i]);
    const deleted = await writeOne(source, '1', [{ op: 'delete', row: 1 }], PLAIN);
    expect(sharedRows(after, deleted.snapshot.tabs[0]!.typed)).toEqual({ head: 0, tail: 0 });
  });
});
