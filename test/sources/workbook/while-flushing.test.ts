/**
 * A replace runs the write's own work that the bytes do not depend on (the new rows of a large tab) while the
 * thread pool flushes them (atomic-file.ts `whileFlushing`): on real files, it runs once, with the new bytes whole
 * in the temp file and the old ones still at the path; an error from it fails the replace and leaves the file as
 * it was, with nothing beside it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replaceFileAtomically, TEMP_FILE_PATTERN } from '../../../server/sources/workbook/atomic-file.ts';
import { signatureOf } from '../../../server/sources/workbook/file-signature.ts';
import { removeTempDirs, tempDir } from './helpers.ts';

afterAll(removeTempDirs);

const tempFiles = (dir: string) => fs.readdirSync(dir).filter((name) => TEMP_FILE_PATTERN.test(name));

describe('work done while a replace is flushed', () => {
  it('runs once, with the new bytes whole beside the file and the old ones still at its path', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'book.csv');
    fs.writeFileSync(file, 'a,b\n1,2\n');
    const next = [Buffer.from('a,b\n'), Buffer.from('1,2\n3,4\n')];
    const seen: { atPath: string; beside: string[] }[] = [];
    const written = await replaceFileAtomically(file, next, {
      basedOn: signatureOf(fs.statSync(file)),
      whileFlushing: () => {
        const beside = tempFiles(dir).map((name) => fs.readFileSync(path.join(dir, name), 'utf8'));
        seen.push({ atPath: fs.readFileSync(file, 'utf8'), beside });
      },
    });
    expect(seen).toEqual([{ atPath: 'a,b\n1,2\n', beside: ['a,b\n1,2\n3,4\n'] }]);
    expect(fs.readFileSync(file, 'utf8')).toBe('a,b\n1,2\n3,4\n');
    expect(written).toBe(signatureOf(fs.statSync(file)));
    expect(tempFiles(dir)).toEqual([]);
  });

  it('fails the replace when it throws: the file keeps its bytes and nothing is left beside it', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'book.csv');
    fs.writeFileSync(file, 'a,b\n1,2\n');
    const failing = replaceFileAtomically(file, [Buffer.from('a,b\n9,9\n')], {
      whileFlushing: () => {
        throw new Error('the rows could not be made');
      },
    });
    await expect(failing).rejects.toThrow('the rows could not be made');
    expect(fs.readFileSync(file, 'utf8')).toBe('a,b\n1,2\n');
    expect(tempFiles(dir)).toEqual([]);
  });
});
